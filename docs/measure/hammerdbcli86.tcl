# hammerdbcli86.tcl: runs HammerDB v6.0's CLI (built for Tcl 9) on Debian's
# tclsh8.6, for compare-hammerdb.sh. Usage:
#   HAMMERDB=/work/ext/hammerdb tclsh8.6 hammerdbcli86.tcl auto script.tcl
# HAMMERDB is an unpacked HammerDB source tree whose lib/ holds pgtcl-ng
# (see README.md); nothing of HammerDB's is in this repository.

# Tcl 9's zipfs only tells hammerdbcli whether it runs from a zipped
# executable; here nothing is mounted, so it loads its files from HAMMERDB.
proc zipfs {sub args} {
  switch -- $sub {
    root  { return "//zipfs:/" }
    mount { return {} }
    default { error "zipfs $sub: not available on Tcl 8.6" }
  }
}
# ticklecharts draws the web service's HTML charts; the CLI run never does.
package provide ticklecharts 0.0
# compare-hammerdb.sh polls the virtual users' output from a file: a line
# must reach it when printed, not when a 4 kB buffer fills.
fconfigure stdout -buffering line
set hdbdir [file normalize $env(HAMMERDB)]
lappend auto_path [file join $hdbdir lib]
# The virtual users are threads with interpreters of their own; they add
# [zipfs root]app/lib and modules in a catch, which fails here. Tcl 8.6
# seeds a new interpreter's auto_path and module path from these variables.
set env(TCLLIBPATH) [list [file join $hdbdir lib]]
set env(TCL8_6_TM_PATH) [file join $hdbdir modules]
cd $hdbdir
source [file join $hdbdir hammerdbcli]
