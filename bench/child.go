package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/uptrace/bun"

	"github.com/collectionkit/kit/events"
	"github.com/collectionkit/kit/internal/pgopen"
)

// childEnv marks a process started as a server child, so a test binary
// (which has no main of ours) serves instead of running tests.
const childEnv = "KITBENCH_CHILD"

// stderrLog is where the children log.
var stderrLog io.Writer = os.Stderr

// serveMain is the hidden --serve mode: one server on 127.0.0.1:0. It
// prints "listening <addr>" on stdout and serves until stdin closes, so a
// child never outlives the benchmark that started it.
func serveMain(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	kind := fs.String("serve", "", "kit, kit-no-events, raw or raw-audit")
	sqlitePath := fs.String("sqlite", "", "SQLite file")
	dsn := fs.String("db", "", "PostgreSQL DSN")
	schema := fs.String("schema", "", "PostgreSQL schema")
	token := fs.String("token", "", "raw: the static bearer token")
	user := fs.String("user", "", "raw: the token's user id")
	teams := fs.String("teams", "", "raw: the user's team ids, comma-separated")
	cpus := fs.String("cpus", "", "pin to these CPUs (comma-separated)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile here")
	totals := fs.Int("totals-cache", 0, "kit: Config.TotalsCache")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if err := serve(*kind, *sqlitePath, *dsn, *schema, *token, *user, *teams, *cpus, *cpuprofile, *totals); err != nil {
		fmt.Fprintf(os.Stderr, "bench --serve %s: %v\n", *kind, err)
		return 1
	}
	return 0
}

func serve(kind, sqlitePath, dsn, schema, token, user, teams, cpus, cpuprofile string, totalsCache int) error {
	if cpus != "" {
		list, err := parseCPUs(cpus)
		if err != nil {
			return err
		}
		if _, err := pinProcess(list); err != nil {
			return err
		}
	}
	ctx := context.Background()
	var pg *bun.DB
	if dsn != "" {
		db, err := pgopen.Open(ctx, dsn, pgopen.Options{SearchPath: schema})
		if err != nil {
			return err
		}
		defer db.Close()
		pg = db
	}
	var h http.Handler
	switch kind {
	case "kit", "kit-no-events":
		logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
		var path string
		if pg == nil {
			path = sqlitePath
		}
		k, err := openKit(path, pg, logger, totalsCache)
		if err != nil {
			return err
		}
		defer k.Close()
		if kind == "kit" {
			// As kit serve runs it: the events add-on with its defaults.
			if _, err := events.Install(ctx, k, events.Config{}); err != nil {
				return err
			}
		}
		h = kitHandler(k)
	case "raw", "raw-audit":
		s := &rawServer{pg: pg != nil, token: []byte(token), userID: user, teams: map[string]bool{}, audit: kind == "raw-audit"}
		for _, t := range strings.Split(teams, ",") {
			s.teams[t] = true
		}
		if pg != nil {
			s.db = pg.DB
		} else {
			db, err := openRawSQLite(sqlitePath)
			if err != nil {
				return err
			}
			defer db.Close()
			s.db = db
		}
		h = s.routes()
	default:
		return fmt.Errorf("unknown server %q (kit, kit-no-events, raw or raw-audit)", kind)
	}
	if cpuprofile != "" {
		f, err := os.Create(cpuprofile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	fmt.Printf("listening %s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes the pipe
	sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = srv.Shutdown(sctx)
	if err := <-done; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func parseCPUs(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("bad CPU list %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

func cpuList(cpus []int) string {
	s := make([]string, len(cpus))
	for i, c := range cpus {
		s[i] = strconv.Itoa(c)
	}
	return strings.Join(s, ",")
}

// child is a running server process.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	addr  string
	log   *tailBuffer
	done  chan error
}

// startChild runs the benchmark binary in --serve mode with args and
// waits for its address.
func startChild(args []string) (*child, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), childEnv+"=1")
	c := &child{cmd: cmd, log: &tailBuffer{max: 16 << 10}, done: make(chan error, 1)}
	cmd.Stderr = c.log
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if c.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() { c.done <- cmd.Wait() }()
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if addr, ok := strings.CutPrefix(sc.Text(), "listening "); ok {
				lines <- addr
			}
		}
		close(lines)
	}()
	select {
	case addr, ok := <-lines:
		if ok {
			c.addr = addr
			return c, nil
		}
	case <-time.After(2 * time.Minute):
	}
	_ = cmd.Process.Kill()
	<-c.done
	return nil, fmt.Errorf("server child did not start: %s", strings.TrimSpace(c.log.String()))
}

// stop closes the child's stdin and waits for it to exit.
func (c *child) stop() error {
	_ = c.stdin.Close()
	select {
	case err := <-c.done:
		if err != nil {
			return fmt.Errorf("server child: %v: %s", err, strings.TrimSpace(c.log.String()))
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.done
		return errors.New("server child did not stop within 30s; killed")
	}
}

// procKB reads a "Key: <n> kB" line of a /proc file in bytes.
func procKB(path, key string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, key+":"); ok {
			f := strings.Fields(v)
			if len(f) == 0 {
				break
			}
			n, err := strconv.ParseInt(f[0], 10, 64)
			return n << 10, err
		}
	}
	return 0, fmt.Errorf("no %s in %s", key, path)
}

// watchMemory samples the child's proportional set size (Pss in
// /proc/<pid>/smaps_rollup) every interval until the returned stop is
// called; stop returns the highest sample, or -1 when none could be read.
// Unlike RSS (VmHWM), PSS counts a page once however many of the
// process's mappings share it: kit's SQLite connections each map the
// database file (mmap_size), and RSS would count its pages once per
// connection.
func (c *child) watchMemory(interval time.Duration) (stop func() int64) {
	path := fmt.Sprintf("/proc/%d/smaps_rollup", c.cmd.Process.Pid)
	peak := int64(-1)
	sample := func() {
		if n, err := procKB(path, "Pss"); err == nil {
			peak = max(peak, n)
		}
	}
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			sample()
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 {
		close(done)
		<-finished
		sample()
		return peak
	}
}

// clockTick is USER_HZ, the unit of /proc/<pid>/stat times; 100 on every
// Linux architecture Go runs on.
const clockTick = 100

// cpuTime is the child's user plus system CPU time so far.
func (c *child) cpuTime() (time.Duration, error) {
	_, d, err := procCPU(c.cmd.Process.Pid)
	return d, err
}

// procCPU reads the command name and the user plus system CPU time of a
// process and of its exited children from /proc/<pid>/stat.
func procCPU(pid int) (string, time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", 0, err
	}
	// The command name is in parentheses and may hold spaces; after it,
	// state is field 3, utime 14, stime 15, cutime 16 and cstime 17.
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return "", 0, errors.New("unexpected /proc stat")
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 15 {
		return "", 0, errors.New("short /proc stat")
	}
	// utime, stime, and cutime, cstime: the time of children that exited
	// and were waited for (PostgreSQL's parallel workers, reaped by the
	// postmaster).
	var ticks int64
	for _, v := range f[11:15] {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", 0, err
		}
		ticks += n
	}
	return s[open+1 : end], time.Duration(ticks) * time.Second / clockTick, nil
}

// postgresCPU is the CPU time so far of every PostgreSQL process on the
// machine, by pid.
func postgresCPU() map[int]time.Duration {
	out := map[int]time.Duration{}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return out
	}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if name, d, err := procCPU(pid); err == nil && name == "postgres" {
			out[pid] = d
		}
	}
	return out
}

// cpuSince is the CPU the processes of now used since before; processes
// that started in between count whole, those that ended are lost.
func cpuSince(before, now map[int]time.Duration) time.Duration {
	var d time.Duration
	for pid, t := range now {
		d += t - before[pid]
	}
	return d
}

// machineBusy is the CPU time all CPUs of the machine spent running
// processes (user, nice, system) or stolen by the hypervisor since boot,
// from /proc/stat. Interrupt time is left out: loopback networking runs
// there on behalf of the benchmark itself.
func machineBusy() (time.Duration, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, errors.New("unexpected /proc/stat")
	}
	var busy int64
	// user nice system idle iowait irq softirq steal
	for i, v := range f[1:9] {
		if i >= 3 && i <= 6 {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return 0, err
		}
		busy += n
	}
	return time.Duration(busy) * time.Second / clockTick, nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
