package layout

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/csvidx/csvidx/"

// layers ranks csvidx's packages: a package may import only packages of
// a lower rank. The internal packages are rank 0, whatever their name.
var layers = map[string]int{
	"scan":         1,
	"sorter":       1,
	"keyspec":      2,
	"fence":        2,
	"source":       2,
	"scan/chunked": 2,
	"format":       3,
	// The decoders of compressed sources: above source, beside index,
	// which never imports them (see TestLocalPathLinksNoDecoder); the
	// codecs and remote builds of cmd/csvidx and python/capi do.
	"source/compressed": 3,
	// Remote objects by byte ranges, and its test server: above source,
	// beside index, which never imports them (net/http's initialisation
	// would cost every local lookup; see TestLocalPathLinksNoDecoder).
	"source/remote":            3,
	"source/remote/remotetest": 3,
	"index":                    4,
	"join":                     5,
	// Lookups in remote indexes, fetched in part: above index and
	// source/remote, beside join.
	"remoteindex": 5,
	// One index over many files (a source.Concat): above index, beside
	// join.
	"multifile":   5,
	"cmd/csvidx":  6,
	"python/capi": 6,
}

// rank returns the layer of the module's package pkg (a path inside the
// module), and whether it has one.
func rank(pkg string) (int, bool) {
	if strings.HasPrefix(pkg, "internal/") {
		return 0, true
	}
	r, ok := layers[pkg]
	return r, ok
}

// TestImportsPointDown: every package of the module but the scripts (tools
// of their own, which may use anything) has a layer, and imports only
// packages of lower layers, in the default build, the codecs build
// (cmd/csvidx's codecs.go) and the remote build (remotebuild.go).
func TestImportsPointDown(t *testing.T) {
	for _, tags := range []string{"", "codecs", "remote"} {
		t.Run("tags="+tags, func(t *testing.T) { importsPointDown(t, tags) })
	}
}

func importsPointDown(t *testing.T, tags string) {
	out, err := exec.Command("go", "list", "-tags", tags, "-f", `{{.ImportPath}} {{join .Imports " "}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], module)
		if strings.HasPrefix(pkg, "scripts/") || pkg == "internal/layout" {
			continue
		}
		r, ok := rank(pkg)
		if !ok {
			t.Errorf("%s has no layer: give it one in layers", pkg)
			continue
		}
		checked++
		for _, imp := range fields[1:] {
			dep, ours := strings.CutPrefix(imp, module)
			if !ours {
				continue
			}
			d, ok := rank(dep)
			if ok && d == 0 && r == 0 {
				continue // the internal packages among themselves: Go forbids cycles
			}
			if !ok || d >= r {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point down", pkg, r, dep, d)
			}
		}
	}
	if checked < len(layers) {
		t.Errorf("checked %d packages, fewer than the %d the table names", checked, len(layers))
	}
}

// TestLocalPathLinksNoDecoder: the csvidx command (its default build),
// index and join link no decoder of compressed data and no HTTP client.
// Every package linked into a process runs its initialisation at start:
// klauspost/compress's zstd took 0.2-0.3 ms of every process (a CRC table,
// GODEBUG=inittrace=1), a fifth of a lookup, and its flate 0.03-0.06 ms;
// linking net/http made a get of 11 rows 0.2-0.3 ms slower (9-13% in an
// A/B with hyperfine; the initialisations took 0.65 ms of clock against
// 0.36 ms without it). Compressed sources live in source/compressed, and
// remote ones in source/remote, which only the programs that read them
// import: csvidx's codecs build the former, its remote build both (see
// TestCodecsBuildLinks and TestRemoteBuildLinks), and the Python binding.
func TestLocalPathLinksNoDecoder(t *testing.T) {
	for _, pkg := range []string{"cmd/csvidx", "index", "join"} {
		out, err := exec.Command("go", "list", "-deps", module+pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/klauspost/") || dep == module+"source/compressed" ||
				dep == "compress/flate" || dep == "compress/gzip" ||
				dep == module+"source/remote" || dep == "net/http" || dep == "crypto/tls" {
				t.Errorf("%s links %s", pkg, dep)
			}
		}
	}
}

// TestCodecsBuildLinks: the codecs build of the csvidx command (go build
// -tags codecs) and the Python binding link source/compressed, whose
// backends read BGZF and zstd: the default build runs the codecs build for
// such files, and the binding reads them itself.
func TestCodecsBuildLinks(t *testing.T) {
	for _, c := range []struct{ pkg, tags string }{{"cmd/csvidx", "codecs"}, {"python/capi", ""}} {
		out, err := exec.Command("go", "list", "-tags", c.tags, "-deps", module+c.pkg).Output()
		if err != nil {
			t.Fatalf("go list -tags %q -deps %s: %v", c.tags, c.pkg, err)
		}
		deps := strings.Fields(string(out))
		for _, want := range []string{module + "source/compressed", "github.com/klauspost/compress/zstd", "github.com/klauspost/compress/flate"} {
			if !slices.Contains(deps, want) {
				t.Errorf("%s (tags %q) does not link %s", c.pkg, c.tags, want)
			}
		}
	}
}

// TestRemoteBuildLinks: the codecs build of the csvidx command links no
// HTTP client either (it runs the remote build for a URL, as the default
// build does), and the remote build (go build -tags remote) links
// source/remote, whose init registers the openers of http, https and s3 URLs,
// and source/compressed, so that it reads whatever the builds that run it
// read.
func TestRemoteBuildLinks(t *testing.T) {
	deps := func(tags string) []string {
		out, err := exec.Command("go", "list", "-tags", tags, "-deps", module+"cmd/csvidx").Output()
		if err != nil {
			t.Fatalf("go list -tags %q -deps cmd/csvidx: %v", tags, err)
		}
		return strings.Fields(string(out))
	}
	for _, dep := range deps("codecs") {
		if dep == module+"source/remote" || dep == "net/http" || dep == "crypto/tls" {
			t.Errorf("cmd/csvidx (tags codecs) links %s", dep)
		}
	}
	remote := deps("remote")
	for _, want := range []string{module + "source/remote", "net/http", module + "source/compressed", "github.com/klauspost/compress/zstd"} {
		if !slices.Contains(remote, want) {
			t.Errorf("cmd/csvidx (tags remote) does not link %s", want)
		}
	}
}
