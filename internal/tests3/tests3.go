package tests3

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Server is a running S3-compatible server.
type Server struct {
	// Endpoint is "http://127.0.0.1:PORT".
	Endpoint string
	// AccessKey and SecretKey are its one identity's keys (admin rights).
	AccessKey, SecretKey string
}

var (
	once    sync.Once
	shared  *Server
	startFn error
	seq     int
)

// Binary returns the server binary's path, or "" when there is none.
func Binary() string {
	if p := os.Getenv("KIT_TEST_S3_SERVER"); p != "" {
		return p
	}
	p, err := exec.LookPath("weed")
	if err != nil {
		return ""
	}
	return p
}

// Start returns the process's server, starting it on the first call; t
// skips when no binary is found and fails when the server does not start.
func Start(t testing.TB) *Server {
	t.Helper()
	bin := Binary()
	if bin == "" {
		t.Skip("tests3: no S3-compatible server: set KIT_TEST_S3_SERVER to a SeaweedFS weed binary or put weed on PATH (.ci/run builds it); the S3 suite is skipped")
	}
	once.Do(func() { shared, startFn = start(bin) })
	if startFn != nil {
		t.Fatalf("tests3: start %s: %v", bin, startFn)
	}
	return shared
}

// BucketURL returns the URL of a new, unique place on s: a key prefix
// of its own in the one bucket "kit-tests" (made by whoever first uses
// it). SeaweedFS gives every bucket volumes of its own, so a bucket per
// test would soon use them all up.
func (s *Server) BucketURL(prefix string) string {
	mu.Lock()
	seq++
	n := seq
	mu.Unlock()
	return fmt.Sprintf("%s/kit-tests/%s-%d-%d", s.Endpoint, prefix, os.Getpid(), n)
}

var mu sync.Mutex

func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			_ = l.Close()
		}
	}()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}

// start runs "weed server" with the S3 gateway, every port free and
// local, and waits until the gateway answers. The server dies with the
// test process (see sysProcAttr).
func start(bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "kit-s3-*")
	if err != nil {
		return nil, err
	}
	s := &Server{AccessKey: "kit-test-access", SecretKey: "kit-test-secret-key-0123456789"}
	conf := map[string]any{"identities": []any{map[string]any{
		"name":        "kit",
		"credentials": []any{map[string]any{"accessKey": s.AccessKey, "secretKey": s.SecretKey}},
		"actions":     []any{"Admin", "Read", "Write", "List", "Tagging"},
	}}}
	raw, _ := json.Marshal(conf)
	confPath := filepath.Join(dir, "s3.json")
	if err := os.WriteFile(confPath, raw, 0o600); err != nil {
		return nil, err
	}
	p, err := freePorts(8)
	if err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	if err := os.MkdirAll(data, 0o750); err != nil {
		return nil, err
	}
	args := []string{"server", "-dir=" + data, "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
		"-master.port=" + strconv.Itoa(p[0]), "-master.port.grpc=" + strconv.Itoa(p[1]),
		"-volume.port=" + strconv.Itoa(p[2]), "-volume.port.grpc=" + strconv.Itoa(p[3]),
		"-filer", "-filer.port=" + strconv.Itoa(p[4]), "-filer.port.grpc=" + strconv.Itoa(p[5]),
		"-s3", "-s3.port=" + strconv.Itoa(p[6]), "-s3.port.grpc=" + strconv.Itoa(p[7]),
		"-s3.config=" + confPath, "-master.volumeSizeLimitMB=64", "-volume.max=100",
		"-master.telemetry=false"}
	cmd := exec.Command(bin, args...)
	logf, err := os.Create(filepath.Join(dir, "weed.log"))
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s.Endpoint = "http://127.0.0.1:" + strconv.Itoa(p[6])
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	for {
		// Any S3 answer (403 for an anonymous list) means the gateway
		// is up; the filer behind it is checked by the first bucket.
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode < 500 {
				return s, nil
			}
		}
		select {
		case <-ctx.Done():
			_ = cmd.Process.Kill()
			log, _ := os.ReadFile(logf.Name())
			if len(log) > 2000 {
				log = log[len(log)-2000:]
			}
			return nil, errors.New("the S3 gateway did not answer within 60s; log tail:\n" + string(log))
		case <-time.After(200 * time.Millisecond):
		}
	}
}
