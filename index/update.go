package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/csvidx/csvidx/format"
	"github.com/csvidx/csvidx/internal/mapping"
)

// compactShare sets when update merges the tail into the main index by
// itself: when the tail holds at least 1/compactShare of the main index's
// records.
const compactShare = 10

// UpdateOptions say where the index is and what update may do.
type UpdateOptions struct {
	// IndexPath is the index file; CSVPATH.csvidx when empty.
	IndexPath string
	// By, when IndexPath is empty, picks the index among the CSV's by its
	// key spec, as [Locate] does; empty: the CSV's default index.
	By string
	// IndexDir, when set, is the directory the CSV's indexes live in
	// instead of next to it (see [HomeOf]); IndexPath wins over it.
	IndexDir string
	// Resources bound the memory of the scan of the new rows.
	Resources
	// NoCompact keeps the tail, however large, instead of merging it into
	// the main index when it reaches a tenth of it.
	NoCompact bool
	// NoWait fails at once, with ErrLocked, if another process is writing
	// the index.
	NoWait bool
	// Progress, when set, is called now and then with the CSV bytes
	// scanned so far and the CSV's size.
	Progress func(done, total int64)
}

// UpdateResult says what an update did.
type UpdateResult struct {
	// Action is "none" (nothing was appended), "tail" (the appended rows
	// were indexed into the tail), "compact" (and the tail was merged into
	// the main index) or "rebuild" (the CSV had no complete header record
	// when the index was built, so it was built again).
	Action string
	// CompactError is why merging the tail into the main index failed,
	// when update tried to and could not. The update itself succeeded:
	// Action is "tail", and the index with its tail is complete.
	CompactError error
	// NewBytes is how many CSV bytes were indexed for the first time.
	NewBytes int64
	// Info describes the index afterwards.
	Info *Info
	// Path is the index file updated.
	Path string
}

// Update indexes the rows appended to the CSV at csvPath since its index
// was built: it rescans the CSV from where the main index stops (the start
// of an unterminated last row, which may have been completed since) and
// writes the result as the tail, FILE.csvidx.tail, leaving the main index
// untouched. When the tail reaches a tenth of the main index, Update merges
// them (see [Compact]) unless opts.NoCompact. A stale main index (the CSV
// shrank or changed) is an error: it must be rebuilt.
func Update(ctx context.Context, csvPath string, opts *UpdateOptions) (_ *UpdateResult, err error) {
	if opts == nil {
		opts = &UpdateOptions{}
	}
	defer namePath(&err, csvPath, opts.IndexPath)
	if err := opts.Resources.Validate(); err != nil {
		return nil, err
	}
	o := &Options{IndexPath: opts.IndexPath, By: opts.By, IndexDir: opts.IndexDir}
	idxPath, err := o.locate(csvPath)
	if err != nil {
		return nil, err
	}
	lock, err := lockIndex(csvPath, idxPath, opts.NoWait)
	if err != nil {
		return nil, err
	}
	defer lock.unlock()

	// A main index that is not usable is an error; a tail that is not is
	// passed over, since the new tail replaces it.
	files, err := indexFiles(idxPath).openFiles(csvPath, false)
	if err != nil {
		return nil, err
	}
	defer files.close()
	if files.mainIs == fileAbsent || files.mainIs == fileBroken {
		return nil, files.mainWhy
	}
	csv, err := files.openWriting(mapping.Sequential, true)
	if err != nil {
		return nil, err
	}
	defer csv.close()
	size := int64(csv.size)
	if err := files.judge(csv.at(ctx), size); err != nil {
		return nil, err
	}
	if err := files.needMain(); err != nil {
		return nil, err
	}
	res, err := indexAppended(ctx, csv, files, idxPath, opts)
	if err != nil {
		return nil, err
	}
	info, err := ReadInfo(csvPath, o)
	if err != nil {
		return nil, err
	}
	if info.Stale != "" { // the CSV shrank or was rewritten while update ran
		return nil, fmt.Errorf("%s: %w while the update ran: %w", csvPath, ErrChanged, info.StaleError)
	}
	res.Info, res.Path = info, idxPath
	return res, nil
}

// indexAppended indexes what the CSV gained since the index files opened
// was built (see Update) and says what it did: nothing, a tail, a tail
// merged into the main index, or a new main index.
func indexAppended(ctx context.Context, csv *csvFile, files *opened, idxPath string, opts *UpdateOptions) (*UpdateResult, error) {
	res, p := planUpdate(csv, files, opts)
	switch res.Action {
	case "none":
		return res, nil
	case "rebuild":
		_, err := p.writeMain(ctx, idxPath)
		return res, err
	}
	tb, err := p.writeTail(ctx, tailPath(idxPath))
	if err != nil {
		return nil, err
	}
	return res, compactIfDue(ctx, csv, files, idxPath, tb.h, opts, res)
}

// planUpdate says what an update of the index files opened does (none,
// rebuild or tail), and returns the pipeline that does it: for a tail, one
// that extends the main index.
func planUpdate(csv *csvFile, files *opened, opts *UpdateOptions) (*UpdateResult, *pipeline) {
	size := int64(csv.size)
	covered := int64(files.furthest().Scanned)
	res := &UpdateResult{Action: "none", NewBytes: size - covered}
	h := files.main.h
	p := &pipeline{csv: csv, spec: specOf(h), res: opts.Resources, progress: opts.Progress}
	switch {
	case size == covered:
		res.NewBytes = 0
	case h.Flags&format.FlagHeader != 0 && (h.HeaderEnd == 0 || h.Resume < h.HeaderEnd):
		// The header record was missing or unterminated: it may have changed, and with it
		// the key column's name. Build again, with the key column the index has.
		res.Action = "rebuild"
	default:
		res.Action = "tail"
		p.main = h
	}
	return res, p
}

// compactIfDue merges the tail just written, whose header is tail, into
// the main index when it holds a tenth of the main index's records, unless
// opts.NoCompact, and records the outcome in res. The files opened are
// closed first.
func compactIfDue(ctx context.Context, csv *csvFile, files *opened, idxPath string, tail *format.Header, opts *UpdateOptions, res *UpdateResult) error {
	if opts.NoCompact || tail.Records*compactShare < files.main.h.Records {
		return nil
	}
	files.close()
	// The appended rows are indexed already: a merge that fails (a full
	// disk, say) leaves a good index with a tail, which the next update or
	// compact merges.
	switch err := compactLocked(ctx, csv, idxPath, opts.Resources); {
	case errors.Is(err, context.Canceled):
		return err
	case err != nil:
		res.CompactError = fmt.Errorf("merge the tail into the main index: %w", err)
	default:
		res.Action = "compact"
	}
	return nil
}
