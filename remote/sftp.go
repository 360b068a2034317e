package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pkg/sftp"
	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"
	"golang.org/x/crypto/ssh"
	"golang.org/x/sync/errgroup"

	"github.com/benchrig/benchrig/internal/localfile"
)

// hashFunc is the shell function the constant scripts below use to print
// a file's sha256: openssl where installed (several times faster than
// coreutils' sha256sum, which does not use the CPU's SHA extensions),
// else sha256sum. A leading "-" is defused with "./".
const hashFunc = `sum() {
	f=$1
	case $f in -*) f=./$f ;; esac
	if command -v openssl >/dev/null 2>&1; then
		s=$(openssl dgst -sha256 -r "$f") || return 1
	else
		s=$(sha256sum "$f") || return 1
	fi
	printf '%s\n' "${s%% *}"
}
`

// hashScript prints the sha256 of $1.
const hashScript = hashFunc + `sum "$1"`

// finishUpload checks the uploaded temp file $1 against sha256 $4, then
// sets mode $3 and renames it over $2. On a mismatch the temp file is
// removed and the target left as it was.
const finishUpload = hashFunc + `set -e
got=$(sum "$1")
if [ "$got" != "$4" ]; then
	rm -f -- "$1"
	echo "uploaded file has sha256 $got, want $4" >&2
	exit 3
fi
chmod "$3" -- "$1"
if [ -d "$2" ]; then
	rm -f -- "$1"
	echo "$2 is a directory" >&2
	exit 4
fi
mv -f -- "$1" "$2"`

// sumKey identifies a local file's content for the hash cache: the same
// path, size and modification time are taken to mean the same bytes.
type sumKey struct {
	path  string
	size  int64
	mtime int64
}

type sumEntry struct {
	once sync.Once
	sum  string
	err  error
}

// localSHA256 hashes a local file once per executor however many hosts
// it is put to: a 500 MB binary sent to 80 nodes is read and hashed once,
// not 80 times.
func (s *SSH) localSHA256(p string, st os.FileInfo) (string, error) {
	k := sumKey{p, st.Size(), st.ModTime().UnixNano()}
	s.mu.Lock()
	if s.sums == nil {
		s.sums = map[sumKey]*sumEntry{}
	}
	e, ok := s.sums[k]
	if !ok {
		e = &sumEntry{}
		s.sums[k] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.sum, e.err = fileSHA256(p) })
	return e.sum, e.err
}

// remoteSHA256 hashes a file on the host, in a session slot its caller
// (a transfer) holds.
func (s *SSH) remoteSHA256(ctx context.Context, host, p string) (string, error) {
	res, err := s.run(ctx, host, Cmd{Args: []string{"sh", "-c", hashScript, "sh", p}}, false, true)
	if err != nil {
		return "", err
	}
	sum := strings.TrimSpace(string(res.Stdout))
	if len(sum) != 64 {
		return "", fmt.Errorf("host %s: sha256 of %s: unexpected output %q", host, p, sum)
	}
	return sum, nil
}

// sftpClient takes two of host's session slots (the SFTP channel and the
// exec that hashes the file) and opens an SFTP channel, tuned for
// throughput: concurrent writes (off by default in pkg/sftp; without
// them uploads run at a third of OpenSSH's speed) and 64 requests in
// flight. closeSFTP closes the channel (idempotent); abort kills the
// server and closes the channel without waiting (closeSFTP is then a
// no-op); release gives the slots back.
func (s *SSH) sftpClient(ctx context.Context, host string) (sc *sftp.Client, closeSFTP, abort, release func(), err error) {
	e, err := s.endpoint(host)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	c, err := s.hostConn(e)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	if err := c.sessions.Acquire(ctx, 2); err != nil {
		return nil, nil, nil, nil, err
	}
	release = func() { c.sessions.Release(2) }
	cl, err := s.client(ctx, c)
	if err != nil {
		release()
		return nil, nil, nil, nil, err
	}
	// The SFTP channel is a session of ours, not pkg/sftp's own: closing
	// the client waits for the server's end of the channel, and a server
	// blocked in open(2) on a FIFO never ends it; closing the session
	// first makes sshd close the channel whatever its child does.
	sess, err := cl.NewSession()
	if err != nil {
		release()
		return nil, nil, nil, nil, &TransportError{Host: host, Op: "sftp", Err: err}
	}
	pw, err := sess.StdinPipe()
	var pr io.Reader
	if err == nil {
		pr, err = sess.StdoutPipe()
	}
	if err == nil {
		err = sess.RequestSubsystem("sftp")
	}
	if err == nil {
		sc, err = sftp.NewClientPipe(pr, pw,
			sftp.UseConcurrentWrites(true),
			sftp.UseConcurrentReads(true),
			sftp.MaxConcurrentRequestsPerFile(64),
		)
	}
	if err != nil {
		sess.Close()
		release()
		return nil, nil, nil, nil, &TransportError{Host: host, Op: "sftp", Err: err}
	}
	// When ctx ends, a transfer blocked on a dead peer or on a server
	// blocked in an open is aborted (pkg/sftp has no context support of
	// its own): the server is killed (sshd keeps a session's channel
	// open while its child lives, so closing alone would wait for it),
	// and the channel closed in the background; closeSFTP then returns
	// at once.
	var once sync.Once
	var aborted atomic.Bool
	var stop func() bool
	closeAll := func() { once.Do(func() { stop(); sess.Close(); sc.Close() }) }
	closeSFTP = func() {
		if !aborted.Load() {
			closeAll()
		}
	}
	abort = func() {
		if aborted.CompareAndSwap(false, true) {
			_ = sess.Signal(ssh.SIGKILL)
			go closeAll()
		}
	}
	stop = context.AfterFunc(ctx, abort)
	return sc, closeSFTP, abort, release, nil
}

// sftpErr classifies an SFTP failure: a status the server sent
// (permission denied, no such file) is the operation's own failure; any
// other error means the channel or connection broke.
func sftpErr(ctx context.Context, host, op string, err error) error {
	var st *sftp.StatusError
	if errors.As(err, &st) || errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) {
		return fmt.Errorf("host %s: %s: %w", host, op, err)
	}
	if ctx.Err() != nil {
		return fmt.Errorf("host %s: %s: %w", host, op, ctx.Err())
	}
	return &TransportError{Host: host, Op: op, Err: err}
}

// bar returns a progress bar for a large transfer, or nil.
func (s *SSH) bar(name string, size int64) *mpb.Bar {
	if s.cfg.Progress == nil || size < s.cfg.ProgressMinBytes {
		return nil
	}
	s.mu.Lock()
	if s.progress == nil {
		// Auto refresh: Progress is only set when bars are wanted (the CLI
		// sets it for a terminal), so draw even to a non-terminal.
		s.progress = mpb.New(mpb.WithOutput(s.cfg.Progress), mpb.WithWidth(32), mpb.WithAutoRefresh())
	}
	p := s.progress
	s.mu.Unlock()
	return p.AddBar(size,
		mpb.PrependDecorators(decor.Name(name, decor.WCSyncSpaceR), decor.Counters(decor.SizeB1024(0), "% .1f / % .1f")),
		mpb.AppendDecorators(decor.AverageSpeed(decor.SizeB1024(0), "% .1f"), decor.Name(" "), decor.Percentage()),
	)
}

// Put uploads t.Local to t.Remote over SFTP. It is skipped when the
// remote file already has the local content (same size and sha256; only
// the mode is fixed). Otherwise the data goes to a temp file next to the
// target, which is then checked with sha256 on the host, given its mode
// (t.Mode, else the local file's) and renamed over the target, so readers
// never see a partial file and a failed upload leaves the old one. If
// t.SHA256 is set the local file must have it. Missing parent
// directories are created. With t.Gzip what is sent, checked and renamed
// into place is the local file's gzip stream (localGzip).
func (s *SSH) Put(ctx context.Context, host string, t Transfer) error {
	op := "put " + t.String()
	// Opened without blocking: a FIFO (or a device) is refused, not
	// waited on. No size bound here: a plan's binaries were bounded when
	// their digests were pinned, and `benchrig put` may ship any file.
	lf, st, err := localfile.Open(t.Local, math.MaxInt64)
	if err != nil {
		return fmt.Errorf("host %s: %s: %w", host, op, err)
	}
	defer lf.Close()
	mode := t.Mode
	if mode == 0 {
		mode = st.Mode().Perm()
	}
	// Hash the local file while the remote side is checked and the data
	// sent: it reads the same page-cached file, on another core.
	type sumResult struct {
		sum string
		err error
	}
	localSum := make(chan sumResult, 1)
	go func() {
		sum, err := s.localSHA256(t.Local, st)
		if err == nil && t.SHA256 != "" && !strings.EqualFold(sum, t.SHA256) {
			err = sumMismatch("local file", t.Local, sum, t.SHA256)
		}
		localSum <- sumResult{sum, err}
	}()
	// What is sent: the file, or its gzip stream. sentSum is the digest
	// the host's copy must have.
	var data io.Reader = lf
	size := st.Size()
	sentSum := func() sumResult {
		ls := <-localSum
		localSum <- ls
		return ls
	}
	if t.Gzip {
		gz, gzSum, err := s.localGzip(t.Local, st)
		if err != nil {
			return fmt.Errorf("host %s: %s: %w", host, op, err)
		}
		data, size = bytes.NewReader(gz), int64(len(gz))
		sentSum = func() sumResult {
			ls := <-localSum
			localSum <- ls
			if ls.err != nil {
				return ls
			}
			return sumResult{gzSum, nil}
		}
	}

	sc, closeSFTP, _, release, err := s.sftpClient(ctx, host)
	if err != nil {
		return err
	}
	defer release()
	defer closeSFTP()
	if rst, err := sc.Stat(t.Remote); err == nil && rst.Mode().IsRegular() && rst.Size() == size {
		rsum, rerr := s.remoteSHA256(ctx, host, t.Remote)
		ls := sentSum()
		if ls.err != nil {
			return fmt.Errorf("host %s: %s: %w", host, op, ls.err)
		}
		if rerr == nil && rsum == ls.sum {
			if rst.Mode().Perm() != mode.Perm() {
				if err := sc.Chmod(t.Remote, mode.Perm()); err != nil {
					return sftpErr(ctx, host, op+": chmod", err)
				}
			}
			return nil
		}
	}

	// Like roachprod put (unlike scp), a missing parent directory is made.
	if err := sc.MkdirAll(path.Dir(t.Remote)); err != nil {
		return sftpErr(ctx, host, op+": mkdir "+path.Dir(t.Remote), err)
	}
	tmp := path.Join(path.Dir(t.Remote), "."+path.Base(t.Remote)+".benchrig-"+s.randHex()+".tmp")
	rf, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return sftpErr(ctx, host, op+": create "+tmp, err)
	}
	r := data
	bar := s.bar(host+" "+path.Base(t.Remote), size)
	if bar != nil {
		pr, err := bar.ProxyReader(data)
		if err == nil {
			r = pr
		}
	}
	_, err = rf.ReadFromWithConcurrency(r, 0)
	if cerr := rf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		if bar != nil {
			bar.Abort(false)
		}
		_ = sc.Remove(tmp) // best effort; the connection may be gone
		return sftpErr(ctx, host, op+": write "+tmp, err)
	}
	closeSFTP()
	ls := sentSum()
	if ls.err != nil {
		s.quietRemove(ctx, host, tmp)
		return fmt.Errorf("host %s: %s: %w", host, op, ls.err)
	}
	_, err = s.run(ctx, host, Cmd{Args: []string{"sh", "-c", finishUpload, "sh", tmp, t.Remote, fmt.Sprintf("%04o", mode.Perm()), ls.sum}}, false, true)
	if err != nil {
		return fmt.Errorf("host %s: %s: verify and rename: %w", host, op, err)
	}
	return nil
}

// quietRemove removes p on host, in a slot the caller holds.
func (s *SSH) quietRemove(ctx context.Context, host, p string) {
	_, _ = s.run(ctx, host, Cmd{Args: []string{"rm", "-f", "--", p}}, false, true)
}

// Get downloads t.Remote to t.Local over SFTP (concurrent reads), via a
// temp file renamed into place after its sha256 matched the one computed
// on the host (in parallel with the download) or t.SHA256 if set. It is
// skipped when t.Local already has that content. Mode is t.Mode, else the
// remote file's. Use PerHostPath to keep one host's files from
// overwriting another's.
//
// The host is not trusted: only a regular file is read (a symlink, FIFO,
// device or directory is refused before it is opened, so a FIFO cannot
// hold the download), at most t.MaxBytes of it when set, within
// t.Timeout when set. A refusal is a *RefusedError; t.Local is then
// removed, so an older copy is never taken for what the host offers now.
func (s *SSH) Get(ctx context.Context, host string, t Transfer) error {
	if t.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, t.Timeout)
		defer cancel()
	}
	err := s.get(ctx, host, t)
	var re *RefusedError
	if errors.As(err, &re) {
		_ = os.Remove(t.Local)
	} else if err != nil && t.Timeout > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		_ = os.Remove(t.Local)
		return &RefusedError{Host: host, Path: t.Remote, Reason: fmt.Sprintf("not sent within %v", t.Timeout)}
	}
	return err
}

// refuseKind names what a non-regular file is.
func refuseKind(m fs.FileMode) string {
	switch {
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m.IsDir():
		return "a directory"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a regular file (" + m.String() + ")"
}

func (s *SSH) get(ctx context.Context, host string, t Transfer) error {
	op := "get " + t.String()
	sc, closeSFTP, abort, release, err := s.sftpClient(ctx, host)
	if err != nil {
		return err
	}
	defer release()
	defer closeSFTP()
	refuse := func(why string) error { return &RefusedError{Host: host, Path: t.Remote, Reason: why} }
	// Lstat, not Stat: a link is refused, not followed, and a FIFO is
	// refused before an open that would block on it.
	lst, err := sc.Lstat(t.Remote)
	if err != nil {
		return sftpErr(ctx, host, op, err)
	}
	if !lst.Mode().IsRegular() {
		return refuse(refuseKind(lst.Mode()))
	}
	if t.MaxBytes > 0 && lst.Size() > t.MaxBytes {
		return refuse(fmt.Sprintf("%d bytes, more than the %d this file may have", lst.Size(), t.MaxBytes))
	}
	if afterGetCheck != nil {
		afterGetCheck(t.Remote)
	}
	// The open itself may block: a FIFO swapped in after the check holds
	// the server's open(2) until a writer comes (SFTP has no O_NONBLOCK).
	// An open of a regular file returns at once, so it gets its own short
	// bound; past it the channel is closed and the file refused. What was
	// opened is checked again below (fstat on the handle).
	type opened struct {
		f   *sftp.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := sc.Open(t.Remote)
		ch <- opened{f, err}
	}()
	var rf *sftp.File
	timer := time.NewTimer(getOpenTimeout)
	select {
	case o := <-ch:
		timer.Stop()
		if o.err != nil {
			return sftpErr(ctx, host, op, o.err)
		}
		rf = o.f
	case <-timer.C:
		abort()
		return refuse(fmt.Sprintf("its open did not return within %v (not a regular file when opened: a FIFO?)", getOpenTimeout))
	case <-ctx.Done():
		abort()
		return sftpErr(ctx, host, op, ctx.Err())
	}
	defer rf.Close()
	rst, err := rf.Stat()
	if err != nil {
		return sftpErr(ctx, host, op+": stat", err)
	}
	if !rst.Mode().IsRegular() {
		return refuse(refuseKind(rst.Mode()))
	}
	if t.MaxBytes > 0 && rst.Size() > t.MaxBytes {
		return refuse(fmt.Sprintf("%d bytes, more than the %d this file may have", rst.Size(), t.MaxBytes))
	}
	mode := t.Mode
	if mode == 0 {
		mode = rst.Mode().Perm()
	}

	var g errgroup.Group
	want := t.SHA256
	if want == "" {
		g.Go(func() error {
			sum, err := s.remoteSHA256(ctx, host, t.Remote)
			want = sum
			return err
		})
	}
	if lst, err := os.Lstat(t.Local); err == nil && lst.Mode().IsRegular() && lst.Size() == rst.Size() {
		if err := g.Wait(); err != nil {
			return fmt.Errorf("host %s: %s: %w", host, op, err)
		}
		if sum, err := fileSHA256(t.Local); err == nil && strings.EqualFold(sum, want) {
			if lst.Mode().Perm() != mode.Perm() {
				return os.Chmod(t.Local, mode.Perm())
			}
			return nil
		}
	}
	bar := s.bar(host+" "+path.Base(t.Remote), rst.Size())
	verify := func(got string) error {
		if err := g.Wait(); err != nil {
			return err
		}
		if !strings.EqualFold(got, want) {
			if t.SHA256 == "" {
				// The host's own digest of its file disagrees with what it sent.
				return refuse(fmt.Sprintf("the content sent has sha256 %s, the host reports %s", got, want))
			}
			return sumMismatch("downloaded", t.Local, got, want)
		}
		return nil
	}
	_, err = writeLocalAtomic(t.Local, mode, verify, func(w io.Writer) error {
		if bar != nil {
			if pw, err := bar.ProxyWriter(w); err == nil {
				w = pw
			}
		}
		if t.MaxBytes > 0 {
			w = &boundedWriter{w: w, left: t.MaxBytes}
		}
		_, err := rf.WriteTo(w)
		if err != nil {
			if bar != nil {
				bar.Abort(false)
			}
			if errors.Is(err, errTooLarge) {
				return refuse(fmt.Sprintf("grew past the %d bytes this file may have while it was read", t.MaxBytes))
			}
			return sftpErr(ctx, host, op, err)
		}
		return nil
	})
	if err != nil {
		var te *TransportError
		var re *RefusedError
		if errors.As(err, &te) || errors.As(err, &re) {
			return err
		}
		return fmt.Errorf("host %s: %s: %w", host, op, err)
	}
	return nil
}

var errTooLarge = errors.New("too large")

// getOpenTimeout bounds get's open of a remote file: a round trip on an
// established channel, which a regular file answers at once; ten seconds
// leaves room for a host under load (the connect timeout, 20 s, bounds a
// whole handshake).
const getOpenTimeout = 10 * time.Second

// afterGetCheck, when set (tests), runs between get's check of the remote
// file and its open: where a host would swap another file in.
var afterGetCheck func(remote string)

// boundedWriter fails a write past its byte budget.
type boundedWriter struct {
	w    io.Writer
	left int64
}

func (b *boundedWriter) Write(p []byte) (int, error) {
	if int64(len(p)) > b.left {
		return 0, errTooLarge
	}
	b.left -= int64(len(p))
	return b.w.Write(p)
}

// PerHostPath is where a file fetched from host goes under dir:
// dir/<host>/<base name of remote>, so the same file from many hosts does
// not collide (the mistake of Fabric's Group.get, fabric#1868).
func PerHostPath(dir, host, remote string) string {
	return filepath.Join(dir, host, path.Base(remote))
}
