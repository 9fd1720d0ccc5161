package multifile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Publishing an index over many files to object storage: its files are
// put as objects beside the manifest's URL (each index file and fence,
// under its run's name), then the manifest, last, by a conditional PUT
// that replaces only the manifest read before (package remoteindex does
// the PUTs, in the remote build). The files it indexes must be at URLs:
// the published parts table names them relative to the manifest's URL
// when they are under its directory, so that the whole can be copied, and
// by their URLs otherwise.

// An Upload is a local file that a publication puts at Name, relative to
// the directory of the manifest's URL.
type Upload struct {
	Local, Name string
}

// PublishFiles prepares the publication at url of the index whose
// manifest is at path, a local one: it writes into tmp the manifest and
// the parts table as they are published (their paths as url reads them,
// no sources: they name local files), and returns the files to put, the
// manifest last. A file the index reads that is not at a URL is an error.
func PublishFiles(path, url, tmp string) ([]Upload, error) {
	m, err := ReadManifest(path)
	if err != nil {
		return nil, err
	}
	parts, err := m.storedParts(path)
	if err != nil {
		return nil, err
	}
	home := dirOf(url)
	out := make([]Part, len(parts))
	for i, p := range parts {
		loc := resolve(dirOf(path), p.Path)
		if !isURL(loc) {
			return nil, fmt.Errorf("%s is a local file, and an index published at a URL reads its files at URLs: put them in object storage, and index them by their URLs", loc)
		}
		p.Path = strings.TrimPrefix(loc, home+"/")
		out[i] = p
	}
	pub := *m
	pub.Parts, pub.Sources = out, nil
	name := url[len(home)+1:]
	if name == "" || strings.ContainsAny(name, "?#") {
		return nil, fmt.Errorf("%s: a manifest's URL names an object, with no query", url)
	}
	if err := pub.write(filepath.Join(tmp, name)); err != nil {
		return nil, err
	}
	var ups []Upload
	dir := filepath.Dir(path)
	for _, f := range m.files() {
		ups = append(ups, Upload{filepath.Join(dir, f), f})
		if _, err := os.Stat(filepath.Join(dir, f+".fence")); err == nil {
			ups = append(ups, Upload{filepath.Join(dir, f+".fence"), f + ".fence"})
		}
	}
	return append(ups, Upload{filepath.Join(tmp, pub.PartsFile), pub.PartsFile}, Upload{filepath.Join(tmp, name), name}), nil
}
