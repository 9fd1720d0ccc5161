package remotetest

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// requireEnv, set to 1 (as test.sh does), makes a test that needs
// versitygw fail without it instead of skipping, as the tests of the
// compressors do (internal/tooltest).
const requireEnv = "CSVIDX_REQUIRE_TOOLS"

// Versity starts versitygw (github.com/versity/versitygw, a real S3
// server: SigV4, conditional requests) on a free port of 127.0.0.1, with a
// posix backend in a temporary directory holding the buckets named, and
// the root credentials access and secret; it is stopped at the end of t.
// It returns the endpoint's URL. Without versitygw on PATH or in
// $(go env GOPATH)/bin, the test is skipped, or fails when requireEnv is
// set.
func Versity(t testing.TB, access, secret string, buckets ...string) string {
	t.Helper()
	bin, err := exec.LookPath("versitygw")
	if err != nil {
		if gopath, gerr := exec.Command("go", "env", "GOPATH").Output(); gerr == nil {
			p := filepath.Join(string(trimNewline(gopath)), "bin", "versitygw")
			if _, serr := os.Stat(p); serr == nil {
				bin, err = p, nil
			}
		}
	}
	if err != nil {
		if os.Getenv(requireEnv) == "1" {
			t.Fatalf("no versitygw (go install github.com/versity/versitygw/cmd/versitygw@v1.8.0), and %s=1", requireEnv)
		}
		t.Skip("no versitygw: go install github.com/versity/versitygw/cmd/versitygw@v1.8.0")
	}
	root := t.TempDir()
	for _, b := range buckets {
		if err := os.Mkdir(filepath.Join(root, b), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	cmd := exec.Command(bin, "--port", addr, "posix", root)
	cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY="+access, "ROOT_SECRET_KEY="+secret)
	log, _ := os.Create(filepath.Join(t.TempDir(), "versitygw.log"))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); log.Close() })
	url := "http://" + addr
	for deadline := time.Now().Add(20 * time.Second); ; {
		resp, err := http.Get(url + "/")
		if err == nil {
			resp.Body.Close()
			return url
		}
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(log.Name())
			t.Fatalf("versitygw did not answer on %s: %v\n%s", addr, err, b)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func trimNewline(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == '\r') {
		b = b[:len(b)-1]
	}
	return b
}
