package join

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/csvidx/csvidx/index"
)

func writeCSV(t testing.TB, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func build(t testing.TB, p string, o *index.BuildOptions) *index.Info {
	t.Helper()
	info, err := index.Build(context.Background(), p, o)
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return info
}
