// Command capi is csvidx's C ABI: the index package behind a few C
// functions, built as a shared library for the Python package csvidx
// (python/csvidx), which loads it with ctypes:
//
//	go build -buildmode=c-shared -o python/csvidx/_libcsvidx.so ./python/capi
//
// (python/build.sh does exactly that). Built as an ordinary program, as
// `go build ./...` does, it is an empty main that does nothing.
//
// # Conventions
//
// Every function returns an int status: 0 for success, -1 for an error. On
// an error, *err points to a NUL-terminated message, allocated with malloc,
// that the caller frees with csvidx_free. It says what is wrong as the
// csvidx command does on standard error, without its "csvidx: " prefix,
// and words the fix, where there is one to word, as a Python call (for
// example "orders.csv.csvidx is stale: ...; call
// csvidx.build('orders.csv', key='user_id')"; see advice.go). Results come back
// through pointer arguments; byte strings and JSON documents are allocated
// with malloc and freed by the caller with csvidx_free.
//
// Strings passed in (paths, key column, delimiter) are NUL-terminated; NULL
// means "" (the default). Keys are passed as one buffer of length-prefixed
// byte strings, so a key may hold any byte, NUL included:
//
//	keys:  [len uint32 little-endian][len bytes] ... repeated nkeys times
//
// An open index is an int64 handle (never 0), an entry in a table on the Go
// side: no Go pointer ever reaches C. Handles are safe for concurrent use
// from any number of threads; csvidx_close waits for lookups in progress on
// that handle. A call never keeps a pointer it was given after it returns.
//
// No Go panic crosses into C: one is turned into an "internal error"
// message.
//
// # Functions
//
//	int csvidx_abi_version(void)
//	int csvidx_build(path, keys, keys_len, nkeys, no_header, delimiter, mem_limit_mib, threads, tmp_dir, index_path, index_dir, no_wait, char **info_json, char **err)
//	int csvidx_indexes(path, index_dir, char **paths_json, char **err)
//	int csvidx_update(path, no_compact, mem_limit_mib, threads, tmp_dir, index_path, index_dir, by, no_wait, char **result_json, char **err)
//	int csvidx_compact(path, index_path, index_dir, by, no_wait, char **info_json, char **err)
//	int csvidx_verify(path, mem_limit_mib, threads, tmp_dir, index_path, index_dir, by, char **result_json, char **err)
//	int csvidx_join(left, right, key, right_key, mode, no_header, delimiter, nulls, coalesce, prefix_left, prefix_right, mem_limit_mib, threads, tmp_dir, index_dir, out, int64_t *rows, char **err)
//	int csvidx_open(path, index_path, index_dir, by, int64_t *handle, char **err)
//	int csvidx_info(handle, char **info_json, char **err)
//	int csvidx_get(handle, keys, keys_len, nkeys, with_header, char **rows, int64_t *rows_len, char **err)
//	int csvidx_count(handle, keys, keys_len, nkeys, int64_t *counts, char **err)
//	int csvidx_header(handle, char **header, int64_t *header_len, char **err)
//	int csvidx_first_record(handle, char **record, int64_t *record_len, char **err)
//	int csvidx_bytes_behind(handle, int64_t *n, char **err)
//	int csvidx_drop_cache(handle, char **err)
//	int csvidx_close(handle, char **err)
//	void csvidx_free(void *p)
//
// and the four steps of an index over many files, and its update: see
// steps.go.
//
// index_dir is the directory a CSV's indexes live in, as the CLI's
// --index-dir (index.HomeOf); NULL or "" means next to the CSV, and
// index_path wins over it. The library does not read CSVIDX_INDEX_DIR: the
// caller passes its value (python/csvidx does, at each call). join's
// index_dir is RIGHT's, and its mem_limit_mib, threads and tmp_dir are
// join.Options.Resources (csvidx join's flags of those names).
//
// build's keys are key specs (a column, or a composite key's columns as one
// CSV record), in the keys buffer format of get; by is a key spec too, or
// NULL. For a composite index, get's and count's keys are values as CSV
// records in the file's dialect (see index.Index.Key).
//
// join's out is a file, replaced whole once the join is done, or a FIFO or
// character device written through; what is refused, and when, is in
// joinoutput.go.
//
// The JSON documents are index.Info (as `csvidx info --json` prints it) for
// build (an array of them for several keys), compact and info; an array of
// paths for indexes; {"action", "new_bytes", "info", "path"} for update;
// {"equal", "differences", "notes", "bytes_behind", "path"} for verify.
// Update and verify give an array of those, one per index: every index of
// the file, in one scan (index.UpdateAll, index.VerifyAll), or the one
// index_path or by names.
//
// The library reads compressed CSVs as the codecs build of the csvidx
// command does: it links package source/compressed, whose backends
// source.Open picks for gzip and zstd files. Its initialisation (0.2-0.3
// ms, see internal/layout) is paid once per Python process that loads the
// library, not at every lookup as it would be by every csvidx process.
package main

/*
#include <stdint.h>
#include <stdlib.h>
*/
import "C"

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unsafe"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/join"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/scan"
	"github.com/csvidx/csvidx/source"
	_ "github.com/csvidx/csvidx/source/compressed" // registers the gzip (BGZF or not) and zstd backends: see the package doc
	_ "github.com/csvidx/csvidx/source/remote"     // registers the openers of http, https and s3 URLs
)

// abiVersion changes whenever a function's signature or meaning does, so the
// Python package refuses a stale library instead of calling it wrongly.
const abiVersion = 10

func main() {}

//export csvidx_abi_version
func csvidx_abi_version() C.int { return abiVersion }

//export csvidx_free
func csvidx_free(p unsafe.Pointer) { C.free(p) }

//export csvidx_build
func csvidx_build(path, keys *C.char, keysLen, nkeys C.int64_t, noHeader C.int, delimiter *C.char, memLimitMiB C.int64_t, threads C.int,
	tmpDir, indexPath, indexDir *C.char, noWait C.int, gzipSpanKiB C.int64_t, infoJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		ks, err := splitKeys(keys, keysLen, nkeys)
		if err != nil {
			return err
		}
		specs := make([]string, len(ks))
		for i, k := range ks {
			specs[i] = string(k)
		}
		delim, err := scan.ParseDelimiter(goString(delimiter))
		if err != nil {
			return fmt.Errorf("delimiter=%q: %w", goString(delimiter), err)
		}
		res, err := resources(memLimitMiB, threads, tmpDir)
		if err != nil {
			return err
		}
		if gzipSpanKiB < 1 || gzipSpanKiB > 64<<10 {
			return fmt.Errorf("gzip_span_kib=%d: give 1 to 65536 (64 MiB, the most a lookup inflates at once)", int64(gzipSpanKiB))
		}
		defer limitMemory(res.MemLimit)()
		infos, err := index.BuildIndexes(context.Background(), goString(path), specs, &index.BuildOptions{
			NoHeader:  noHeader != 0,
			Delimiter: delim,
			IndexPath: goString(indexPath),
			IndexDir:  goString(indexDir),
			Resources: res,
			NoWait:    noWait != 0,
			GzipSpan:  int64(gzipSpanKiB) << 10,
		})
		if err != nil {
			return err
		}
		if len(infos) == 1 {
			return setInfo(infoJSON, infos[0])
		}
		return setJSON(infoJSON, infos)
	})
}

//export csvidx_indexes
func csvidx_indexes(path, indexDir *C.char, pathsJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		h, err := index.HomeOf(goString(path), goString(indexDir))
		if err != nil {
			return err
		}
		paths, err := h.Indexes()
		if err != nil {
			return err
		}
		return setJSON(pathsJSON, paths)
	})
}

//export csvidx_update
func csvidx_update(path *C.char, noCompact C.int, memLimitMiB C.int64_t, threads C.int,
	tmpDir, indexPath, indexDir, by *C.char, noWait C.int, resultJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		res, err := resources(memLimitMiB, threads, tmpDir)
		if err != nil {
			return err
		}
		defer limitMemory(res.MemLimit)()
		o := &index.UpdateOptions{
			IndexPath: goString(indexPath),
			IndexDir:  goString(indexDir),
			By:        goString(by),
			Resources: res,
			NoCompact: noCompact != 0,
			NoWait:    noWait != 0,
		}
		rs, err := index.UpdateAll(context.Background(), goString(path), o) // or the one index_path or by names
		if err != nil {
			return err
		}
		out := make([]updateJSON, len(rs))
		for i, r := range rs {
			out[i] = updateJSON{r.Action, r.NewBytes, r.Info, r.Path}
		}
		return setJSON(resultJSON, out)
	})
}

// updateJSON is what csvidx_update says of one index.
type updateJSON struct {
	Action   string      `json:"action"`
	NewBytes int64       `json:"new_bytes"`
	Info     *index.Info `json:"info"`
	Path     string      `json:"path"`
}

//export csvidx_compact
func csvidx_compact(path, indexPath, indexDir, by *C.char, noWait C.int, infoJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		info, err := index.Compact(context.Background(), goString(path), &index.CompactOptions{
			IndexPath: goString(indexPath), IndexDir: goString(indexDir), By: goString(by), NoWait: noWait != 0,
		})
		if err != nil {
			return err
		}
		return setInfo(infoJSON, info)
	})
}

//export csvidx_verify
func csvidx_verify(path *C.char, memLimitMiB C.int64_t, threads C.int, tmpDir, indexPath, indexDir, by *C.char,
	resultJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		res, err := resources(memLimitMiB, threads, tmpDir)
		if err != nil {
			return err
		}
		defer limitMemory(res.MemLimit)()
		o := &index.VerifyOptions{
			IndexPath: goString(indexPath),
			IndexDir:  goString(indexDir),
			By:        goString(by),
			Resources: res,
		}
		rs, err := index.VerifyAll(context.Background(), goString(path), o) // or the one index_path or by names
		if err != nil {
			return err
		}
		out := make([]verifyJSON, len(rs))
		for i, r := range rs {
			out[i] = verifyJSON{r.Equal, r.Differences, r.Notes, r.BytesBehind, r.Path}
		}
		return setJSON(resultJSON, out)
	})
}

// verifyJSON is what csvidx_verify says of one index.
type verifyJSON struct {
	Equal       bool     `json:"equal"`
	Differences []string `json:"differences"`
	Notes       []string `json:"notes"`
	BytesBehind int64    `json:"bytes_behind"`
	Path        string   `json:"path"`
}

// joinModes are csvidx_join's mode names, in join.Mode's order.
var joinModes = []string{"inner", "left", "semi", "anti", "right", "full", "right_semi", "right_anti"}

//export csvidx_join
func csvidx_join(left, right, key, rightKey, mode *C.char, noHeader C.int, delimiter *C.char, nulls, coalesce C.int,
	prefixLeft, prefixRight *C.char, memLimitMiB C.int64_t, threads C.int, tmpDir, indexDir, out *C.char,
	rows *C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		m := slices.Index(joinModes, goString(mode))
		if m < 0 {
			return fmt.Errorf("how=%q: give one of %s", goString(mode), strings.Join(joinModes, ", "))
		}
		delim, err := scan.ParseDelimiter(goString(delimiter))
		if err != nil {
			return fmt.Errorf("delimiter=%q: %w", goString(delimiter), err)
		}
		res, err := resources(memLimitMiB, threads, tmpDir)
		if err != nil {
			return err
		}
		defer limitMemory(res.MemLimit)()
		o, err := openOutput(goString(out)) // before LEFT is read: see joinoutput.go
		if err != nil {
			return err
		}
		defer o.abandon()
		lf, err := source.OpenStream(goString(left))
		if err != nil {
			return err
		}
		defer lf.Close()
		j, err := join.New(lf, goString(right), &join.Options{
			Mode: join.Mode(m), Key: goString(key), RightKey: goString(rightKey), RightIndexDir: goString(indexDir),
			Delimiter: delim, NoHeader: noHeader != 0, Nulls: nulls != 0, Coalesce: coalesce != 0,
			PrefixLeft: goString(prefixLeft), PrefixRight: goString(prefixRight),
			Resources: res,
		})
		if err != nil {
			return err
		}
		defer j.Close()
		n, err := o.write(context.Background(), j)
		if err != nil {
			return err
		}
		*rows = C.int64_t(n)
		return nil
	})
}

//export csvidx_open
func csvidx_open(path, indexPath, indexDir, by *C.char, h *C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		p, ip := goString(path), goString(indexPath)
		if source.Remote(p) && (ip == "" || source.Remote(ip)) {
			ix, closeIx, err := openRemote(p, ip, goString(by))
			if err != nil {
				return err
			}
			*h = C.int64_t(addHandle(ix, closeIx))
			return nil
		}
		ix, err := index.Open(p, &index.Options{IndexPath: ip, By: goString(by), IndexDir: goString(indexDir)})
		if err != nil { // a manifest is looked for only here: opening a CSV's index pays nothing for it
			manifest := manifestOf(p, ip)
			switch {
			case manifest == "":
				return err
			case goString(by) != "":
				return fmt.Errorf("%s is an index over many files, by one key: by picks among one file's indexes; leave it out", manifest)
			}
			x, err := multifile.Open(manifest)
			if err != nil {
				return err
			}
			*h = C.int64_t(addHandle(x, x.Close))
			return nil
		}
		*h = C.int64_t(addHandle(ix, ix.Close))
		return nil
	})
}

//export csvidx_info
func csvidx_info(h C.int64_t, infoJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		return withIndex(int64(h), func(ix opened) error {
			return setInfo(infoJSON, ix.Info())
		})
	})
}

//export csvidx_get
func csvidx_get(h C.int64_t, keys *C.char, keysLen, nkeys C.int64_t, withHeader C.int,
	rows **C.char, rowsLen *C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		ks, err := splitKeys(keys, keysLen, nkeys)
		if err != nil {
			return err
		}
		var b cbuf
		done := false
		if err := withIndex(int64(h), func(ix opened) error { return keyValues(ix, ks) }); err != nil {
			return err
		}
		defer func() {
			if !done { // an error, or a panic on its way to call's recover
				b.release()
			}
		}()
		err = withIndex(int64(h), func(ix opened) error {
			if withHeader != 0 {
				header, err := ix.Header()
				if err != nil {
					return err
				}
				if _, err := b.Write(header); err != nil {
					return err
				}
			}
			if err := ix.Get(ks, func(row []byte) error {
				_, err := b.Write(row)
				return err
			}); err != nil {
				return err
			}
			// The rows were read from a mapping of the CSV: if it shrank
			// meanwhile, they may be wrong (as the CLI checks after get).
			return ix.Check()
		})
		if err != nil {
			return err
		}
		*rows, *rowsLen = (*C.char)(b.p), C.int64_t(b.n)
		done = true
		return nil
	})
}

//export csvidx_count
func csvidx_count(h C.int64_t, keys *C.char, keysLen, nkeys C.int64_t, counts *C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		ks, err := splitKeys(keys, keysLen, nkeys)
		if err != nil {
			return err
		}
		out := unsafe.Slice(counts, len(ks))
		return withIndex(int64(h), func(ix opened) error {
			if err := keyValues(ix, ks); err != nil {
				return err
			}
			for i, k := range ks {
				n, err := ix.Count(k)
				if err != nil {
					return err
				}
				out[i] = C.int64_t(n)
			}
			return nil
		})
	})
}

//export csvidx_header
func csvidx_header(h C.int64_t, header **C.char, headerLen *C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		return withIndex(int64(h), func(ix opened) error {
			row, err := ix.Header()
			if err != nil {
				return err
			}
			var b cbuf
			if _, err := b.Write(row); err != nil {
				return err
			}
			*header, *headerLen = (*C.char)(b.p), C.int64_t(b.n)
			return nil
		})
	})
}

//export csvidx_bytes_behind
func csvidx_bytes_behind(h C.int64_t, n *C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		return withIndex(int64(h), func(ix opened) error {
			*n = C.int64_t(ix.BytesBehind())
			return nil
		})
	})
}

//export csvidx_drop_cache
func csvidx_drop_cache(h C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		return withIndex(int64(h), func(ix opened) error {
			if one, ok := ix.(*index.Index); ok {
				return one.DropCache()
			}
			return nil // an index over many files: its partitions' pages are read as they come
		})
	})
}

//export csvidx_close
func csvidx_close(h C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error { return closeHandle(int64(h)) })
}

// call runs fn and turns its error, or its panic, into a status and a
// message for C.
func call(errOut **C.char, fn func() error) (status C.int) {
	defer func() {
		if r := recover(); r != nil {
			status = setErr(errOut, fmt.Errorf("internal error (a bug in csvidx; please report it): %v", r))
		}
	}()
	if err := fn(); err != nil {
		return setErr(errOut, err)
	}
	return 0
}

func setErr(errOut **C.char, err error) C.int {
	if errOut != nil {
		*errOut = C.CString(advise(err))
	}
	return -1
}

// setInfo is setJSON for an index's description, with the fix of a stale
// index worded as a Python call.
func setInfo(out **C.char, info *index.Info) error {
	if info.StaleError != nil {
		info.Stale = advise(info.StaleError)
	}
	return setJSON(out, info)
}

func setJSON(out **C.char, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	*out = C.CString(string(data))
	return nil
}

func goString(s *C.char) string {
	if s == nil {
		return ""
	}
	return C.GoString(s)
}

// keyValues turns each of ks, a value as a user writes it, into the key ix
// looks up (see index.Index.Key): for a composite key, ks are CSV records,
// which Python quotes field by field.
func keyValues(ix opened, ks [][]byte) error {
	if len(ix.KeyColumns()) < 2 {
		return nil
	}
	for i, k := range ks {
		var err error
		if ks[i], err = ix.Key(k); err != nil {
			return err
		}
	}
	return nil
}

// errKeys is a malformed key buffer: a bug in the caller, not bad input.
var errKeys = errors.New("malformed key buffer (a bug in the caller of the csvidx library)")

// splitKeys reads nkeys length-prefixed keys from the n bytes at p. The keys
// alias the caller's memory, valid for the call only.
func splitKeys(p *C.char, n, nkeys C.int64_t) ([][]byte, error) {
	if n < 0 || nkeys < 0 || (n > 0 && p == nil) {
		return nil, errKeys
	}
	var buf []byte
	if n > 0 {
		buf = unsafe.Slice((*byte)(unsafe.Pointer(p)), int(n))
	}
	keys := make([][]byte, 0, min(int(nkeys), len(buf)/4))
	for range int(nkeys) {
		if len(buf) < 4 {
			return nil, errKeys
		}
		l := binary.LittleEndian.Uint32(buf)
		buf = buf[4:]
		if uint64(l) > uint64(len(buf)) {
			return nil, errKeys
		}
		keys = append(keys, buf[:l:l])
		buf = buf[l:]
	}
	if len(buf) != 0 {
		return nil, errKeys
	}
	return keys, nil
}

// resources checks the options of the writers and of join, naming them as
// Python does.
func resources(memLimitMiB C.int64_t, threads C.int, tmpDir *C.char) (index.Resources, error) {
	mib, n := int64(memLimitMiB), int(threads)
	switch {
	case mib < 1:
		return index.Resources{}, fmt.Errorf("mem_limit_mib=%d: give at least 1", mib)
	case mib > index.MaxMemLimit>>20:
		return index.Resources{}, fmt.Errorf("mem_limit_mib=%d: give at most %d", mib, index.MaxMemLimit>>20)
	case n < 0:
		return index.Resources{}, fmt.Errorf("threads=%d: give 0 (all cores) or more", n)
	case n > index.MaxThreads:
		return index.Resources{}, fmt.Errorf("threads=%d: give at most %d (a build uses at most four threads per core)", n, index.MaxThreads)
	}
	return index.Resources{MemLimit: mib << 20, TmpDir: goString(tmpDir), Threads: n}, nil
}

//export csvidx_first_record
func csvidx_first_record(h C.int64_t, record **C.char, recordLen *C.int64_t, errOut **C.char) C.int {
	return call(errOut, func() error {
		return withIndex(int64(h), func(ix opened) error {
			rec, err := firstRecord(ix)
			if err != nil {
				return err
			}
			var b cbuf
			if _, err := b.Write(rec); err != nil {
				return err
			}
			*record, *recordLen = (*C.char)(b.p), C.int64_t(b.n)
			return nil
		})
	})
}

// manifestOf returns the manifest of an index over many files that open
// was given: index_path, when it names one, else path when it is one and
// has no index of its own; "" for an index of one file.
func manifestOf(path, indexPath string) string {
	switch {
	case indexPath != "":
		if multifile.IsManifest(indexPath) {
			return indexPath
		}
	case multifile.IsManifest(path):
		return path
	}
	return ""
}
