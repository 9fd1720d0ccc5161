package main

/*
#include <stdint.h>
*/
import "C"

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/csvidx/csvidx/index"
	"github.com/csvidx/csvidx/multifile"
	"github.com/csvidx/csvidx/scan"
)

// The four steps of an index over many files (package multifile), for
// python/csvidx.dask, which runs them as tasks of a Dask graph, each in
// whichever worker process the scheduler picks, and the update that adds
// files to such an index:
//
//	int csvidx_plan(files_json, key, manifest, no_header, delimiter, partitions, split_mib, char **plan_json, char **err)
//	int csvidx_plan_update(manifest, files_json, split_mib, char **plan_json, char **err)
//	int csvidx_map(plan, task, char **result_json, char **err)
//	int csvidx_reduce(plan, partition, mem_limit_mib, threads, tmp_dir, char **info_json, char **err)
//	int csvidx_commit(plan, char **result_json, char **err)
//	int csvidx_update_many(manifest, files_json, mem_limit_mib, threads, tmp_dir, char **result_json, char **err)
//
// files_json is a JSON array of paths, URLs or patterns (multifile.Expand);
// plan records its patterns in the manifest, as csvidx build does, for
// updates to look for new files there. plan_json is {"plan", "run",
// "tasks", "partitions"}, and for plan_update also "added", the files the
// plan adds: none, with "plan" and "run" null and no tasks or partitions,
// when there is no file to add. plan_update's files_json may be NULL or
// "", for the files the build's patterns or list name now (see
// multifile.PlanUpdate), as may update_many's, which plans and runs the
// steps in this process (multifile.Update). Map's result is the task's
// multifile.MapResult, reduce's the partition's index.Info, commit's
// {"manifest", "run", "files", "partitions", "size", "layers"}, and
// update_many's {"added", "new_bytes", "indexed", "run", "layers"}.

//export csvidx_plan
func csvidx_plan(files, key, manifest *C.char, noHeader C.int, delimiter *C.char, partitions C.int, splitMiB C.int64_t,
	planJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		var args []string
		if err := json.Unmarshal([]byte(goString(files)), &args); err != nil {
			return fmt.Errorf("files: a JSON array of paths: %w", err)
		}
		names, err := multifile.Expand(args)
		if err != nil {
			return err
		}
		delim, err := scan.ParseDelimiter(goString(delimiter))
		if err != nil {
			return fmt.Errorf("delimiter=%q: %w", goString(delimiter), err)
		}
		if splitMiB < 1 {
			return fmt.Errorf("split_mib=%d: give 1 or more", int64(splitMiB))
		}
		o := &multifile.PlanOptions{BuildOptions: index.BuildOptions{Key: goString(key), NoHeader: noHeader != 0, Delimiter: delim},
			Partitions: int(partitions), SplitBytes: int64(splitMiB) << 20, Sources: multifile.NewSources(args, "")}
		p, path, err := multifile.MakePlan(context.Background(), names, goString(manifest), o)
		if err != nil {
			return err
		}
		return setJSON(planJSON, map[string]any{"plan": path, "run": p.Run, "tasks": len(p.Tasks), "partitions": p.Partitions})
	})
}

//export csvidx_map
func csvidx_map(plan *C.char, task C.int64_t, resultJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		r, err := multifile.Map(context.Background(), goString(plan), int(task))
		if err != nil {
			return err
		}
		return setJSON(resultJSON, r)
	})
}

//export csvidx_reduce
func csvidx_reduce(plan *C.char, partition, memLimitMiB C.int64_t, threads C.int, tmpDir *C.char, infoJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		res, err := resources(memLimitMiB, threads, tmpDir)
		if err != nil {
			return err
		}
		defer limitMemory(res.MemLimit)()
		info, err := multifile.Reduce(context.Background(), goString(plan), int(partition), res)
		if err != nil {
			return err
		}
		return setInfo(infoJSON, info)
	})
}

//export csvidx_commit
func csvidx_commit(plan *C.char, resultJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		m, path, err := multifile.Commit(context.Background(), goString(plan))
		if err != nil {
			return err
		}
		return setJSON(resultJSON, map[string]any{"manifest": path, "run": m.Run, "files": m.PartCount, "partitions": len(m.Partitions),
			"size": m.Size, "layers": len(m.Layers) + 1})
	})
}

//export csvidx_plan_update
func csvidx_plan_update(manifest, files *C.char, splitMiB C.int64_t, planJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		names, err := filesToAdd(files)
		if err != nil {
			return err
		}
		if splitMiB < 1 {
			return fmt.Errorf("split_mib=%d: give 1 or more", int64(splitMiB))
		}
		o := &multifile.PlanOptions{SplitBytes: int64(splitMiB) << 20}
		p, path, added, err := multifile.PlanUpdate(context.Background(), goString(manifest), names, o)
		if err != nil {
			return err
		}
		if p == nil {
			return setJSON(planJSON, map[string]any{"plan": nil, "run": nil, "tasks": 0, "partitions": 0, "added": []string{}})
		}
		return setJSON(planJSON, map[string]any{"plan": path, "run": p.Run, "tasks": len(p.Tasks), "partitions": p.Partitions, "added": added})
	})
}

//export csvidx_update_many
func csvidx_update_many(manifest, files *C.char, memLimitMiB C.int64_t, threads C.int, tmpDir *C.char, resultJSON, errOut **C.char) C.int {
	return call(errOut, func() error {
		names, err := filesToAdd(files)
		if err != nil {
			return err
		}
		res, err := resources(memLimitMiB, threads, tmpDir)
		if err != nil {
			return err
		}
		defer limitMemory(res.MemLimit)()
		r, err := multifile.Update(context.Background(), goString(manifest), names, &multifile.UpdateOptions{Resources: res})
		if err != nil {
			return err
		}
		added := r.Added
		if added == nil {
			added = []string{} // [] in JSON, not null
		}
		return setJSON(resultJSON, map[string]any{"added": added, "new_bytes": r.NewBytes, "indexed": r.Indexed, "run": r.Manifest.Run,
			"layers": len(r.Manifest.Layers) + 1})
	})
}

// filesToAdd returns the files an update adds (those the index lists are
// passed over): those files, a JSON array of paths, URLs or patterns,
// names, expanded; nil when files is NULL or "", for the files the build's
// patterns or list name now.
func filesToAdd(files *C.char) ([]string, error) {
	s := goString(files)
	if s == "" {
		return nil, nil
	}
	var args []string
	if err := json.Unmarshal([]byte(s), &args); err != nil {
		return nil, fmt.Errorf("files: a JSON array of paths: %w", err)
	}
	if len(args) == 0 {
		return nil, errors.New("files: an empty list names no file to add; name some, or none (None) for those the build's patterns or list name now")
	}
	return multifile.Expand(args)
}
