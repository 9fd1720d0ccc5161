package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJoinReaderStops: csvidx join --left and --semi writing into a pipe
// whose reader stops early (head) end with status 0 and say nothing.
func TestJoinReaderStops(t *testing.T) {
	bin, err := exec.LookPath("csvidx")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	right, left := filepath.Join(dir, "users.csv"), filepath.Join(dir, "orders.csv")
	var r, l strings.Builder
	r.WriteString("user_id,name\n")
	for i := range 1000 {
		fmt.Fprintf(&r, "%d,user %d\n", i, i)
	}
	l.WriteString("order_id,user_id\n")
	for i := range 300000 { // far more than a pipe holds
		fmt.Fprintf(&l, "%d,%d\n", i, i%1500)
	}
	os.WriteFile(right, []byte(r.String()), 0o644)
	os.WriteFile(left, []byte(l.String()), 0o644)
	if out, err := exec.Command(bin, "build", right, "--key", "user_id").CombinedOutput(); err != nil {
		t.Fatal(string(out))
	}
	for _, mode := range []string{"--left", "--semi"} {
		cmd := exec.Command(bin, "join", mode, left, right, "--key", "user_id")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		for n := 0; n < 10 && sc.Scan(); n++ { // head -n 10
		}
		out.Close()
		if err := cmd.Wait(); err != nil || stderr.Len() > 0 {
			t.Fatalf("join %s into a pipe closed early: %v, stderr %q", mode, err, stderr.String())
		}
	}
}
