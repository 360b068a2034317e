package fidelity

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Tag is one fidelity:<release>/<id> comment in the repository, resolved
// to the code it sits in.
type Tag struct {
	Release, ID string
	// File and Line say where the comment is (File relative to the
	// repository, with slashes).
	File string
	Line int
	// Anchor is the code the tag belongs to: package.Name or
	// package.Type.Method of the Go declaration the comment is in or
	// documents, or the file itself for a YAML file.
	Anchor string
}

func (t Tag) String() string {
	return fmt.Sprintf("%s:%d: fidelity:%s/%s", t.File, t.Line, t.Release, t.ID)
}

var tagRE = regexp.MustCompile(`fidelity:(v[0-9]+\.[0-9]+)/([A-Za-z0-9]+)`)

// Scan finds every tag under root: in the comments of Go files (test
// files excepted: a tag marks the code that implements a row, not the
// test that pins it) and in the comments of YAML files. testdata
// directories and dot-directories are skipped. A Go tag outside every
// declaration is a problem, returned with the others.
func Scan(root string) ([]Tag, []error) {
	var tags []Tag
	var errs []error
	fset := token.NewFileSet()
	err := walkFiles(root, func(path, rel, name string) error {
		switch {
		case strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go"):
			t, e := scanGo(fset, path, rel)
			tags, errs = append(tags, t...), append(errs, e...)
		case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"):
			t, e := scanYAML(path, rel)
			tags, errs = append(tags, t...), append(errs, e...)
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return tags, errs
}

func scanGo(fset *token.FileSet, path, rel string) ([]Tag, []error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, []error{err}
	}
	if !bytes.Contains(src, []byte("fidelity:v")) {
		return nil, nil
	}
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return nil, []error{err}
	}
	var tags []Tag
	var errs []error
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			for _, m := range tagRE.FindAllStringSubmatch(c.Text, -1) {
				pos := fset.Position(c.Pos())
				t := Tag{Release: m[1], ID: m[2], File: rel, Line: pos.Line}
				if t.Anchor = enclosing(f, c.Pos()); t.Anchor == "" {
					errs = append(errs, fmt.Errorf("%s: beside no declaration: put it in the doc comment or the body of the code it marks", t))
					continue
				}
				tags = append(tags, t)
			}
		}
	}
	return tags, errs
}

// enclosing names the top-level declaration whose doc comment or body
// holds pos: package.Func, package.Type.Method, or package.Name of the
// type, var or const spec.
func enclosing(f *ast.File, pos token.Pos) string {
	pkg := f.Name.Name
	within := func(n ast.Node, doc *ast.CommentGroup) bool {
		start := n.Pos()
		if doc != nil && doc.Pos() < start {
			start = doc.Pos()
		}
		return start <= pos && pos < n.End()
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !within(d, d.Doc) {
				continue
			}
			if d.Recv != nil && len(d.Recv.List) == 1 {
				return pkg + "." + recvName(d.Recv.List[0].Type) + "." + d.Name.Name
			}
			return pkg + "." + d.Name.Name
		case *ast.GenDecl:
			if !within(d, d.Doc) {
				continue
			}
			for _, s := range d.Specs {
				var doc *ast.CommentGroup
				var name string
				switch s := s.(type) {
				case *ast.TypeSpec:
					doc, name = s.Doc, s.Name.Name
				case *ast.ValueSpec:
					doc, name = s.Doc, s.Names[0].Name
				default:
					continue
				}
				if within(s, doc) || (len(d.Specs) == 1) {
					return pkg + "." + name
				}
			}
			// In the declaration's own doc comment of a group: the group
			// has no single name.
			return ""
		}
	}
	return ""
}

func recvName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvName(e.X)
	case *ast.IndexExpr:
		return recvName(e.X)
	case *ast.IndexListExpr:
		return recvName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return "?"
}

func scanYAML(path, rel string) ([]Tag, []error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, []error{err}
	}
	var tags []Tag
	var errs []error
	s := bufio.NewScanner(bytes.NewReader(src))
	s.Buffer(nil, 1<<20)
	for n := 1; s.Scan(); n++ {
		line := s.Text()
		for _, m := range tagRE.FindAllStringSubmatchIndex(line, -1) {
			t := Tag{Release: line[m[2]:m[3]], ID: line[m[4]:m[5]], File: rel, Line: n, Anchor: rel}
			if !strings.Contains(line[:m[0]], "#") {
				errs = append(errs, fmt.Errorf("%s: not in a YAML comment", t))
				continue
			}
			tags = append(tags, t)
		}
	}
	if err := s.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", rel, err))
	}
	return tags, errs
}

// Uses are the names that the non-test Go files under root refer to (an
// identifier that is not the name of the declaration it stands in),
// skipping testdata and dot-directories: a row's code must be among
// them, or only tests reach it and the row describes nothing benchrig
// does. Names are compared without types (a method's name used on any
// value counts), which can only let a row pass, never fail one wrongly.
func Uses(root string) (map[string]bool, []error) {
	uses := map[string]bool{}
	var errs []error
	fset := token.NewFileSet()
	err := walkFiles(root, func(path, _, name string) error {
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			errs = append(errs, err)
			return nil
		}
		declared := map[*ast.Ident]bool{}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				declared[d.Name] = true
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						declared[s.Name] = true
					case *ast.ValueSpec:
						for _, n := range s.Names {
							declared[n] = true
						}
					}
				}
			}
		}
		// Fields (struct fields, interface methods, parameters) declare
		// their names too: an interface listing a method does not use it.
		ast.Inspect(f, func(n ast.Node) bool {
			if fl, ok := n.(*ast.Field); ok {
				for _, id := range fl.Names {
					declared[id] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok && !declared[id] {
				uses[id.Name] = true
			}
			return true
		})
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return uses, errs
}

// commitRef is a commit a comment cites a source at: "@ <hash>", "at
// <hash>" or "cockroachdb/<repo> <hash>", the hash 7 to 40 hex digits.
var commitRef = regexp.MustCompile(`(?:@|\bat|\bcockroachdb/(?:docs|cockroach))\s+([0-9a-f]{7,40})\b`)

// CommentCite is a commit cited in a comment of a Go or YAML file.
type CommentCite struct {
	File   string
	Line   int
	Commit string
}

// CommentCites finds the commits the comments of the repository's Go
// (test files excepted) and YAML files cite, so that each can be held to
// the commits the fidelity tables list: a plan's or a preset's source
// is checked like a row's.
func CommentCites(root string) ([]CommentCite, []error) {
	var out []CommentCite
	var errs []error
	fset := token.NewFileSet()
	err := walkFiles(root, func(path, rel, name string) error {
		add := func(line int, text string) {
			for _, m := range commitRef.FindAllStringSubmatch(text, -1) {
				out = append(out, CommentCite{File: rel, Line: line, Commit: m[1]})
			}
		}
		switch {
		case strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go"):
			f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			for _, cg := range f.Comments {
				add(fset.Position(cg.Pos()).Line, strings.Join(strings.Fields(cg.Text()), " "))
			}
		case strings.HasSuffix(name, ".yaml") || strings.HasSuffix(name, ".yml"):
			src, err := os.ReadFile(path)
			if err != nil {
				errs = append(errs, err)
				return nil
			}
			// A comment block is read as one text: a citation may wrap.
			var block []string
			start := 0
			flush := func() {
				if len(block) > 0 {
					add(start, strings.Join(block, " "))
				}
				block = nil
			}
			for i, line := range strings.Split(string(src), "\n") {
				_, c, ok := strings.Cut(line, "#")
				if !ok {
					flush()
					continue
				}
				if block == nil {
					start = i + 1
				}
				block = append(block, strings.TrimSpace(c))
			}
			flush()
		}
		return nil
	})
	if err != nil {
		errs = append(errs, err)
	}
	return out, errs
}

// walkFiles calls fn for every file under root (rel: its path relative to
// root, with slashes), skipping testdata and dot-directories.
func walkFiles(root string, fn func(path, rel, name string) error) error {
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		return fn(path, filepath.ToSlash(rel), name)
	})
}
