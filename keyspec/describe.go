package keyspec

import (
	"fmt"
	"strconv"
	"strings"
)

// Describe lists header fields for an error message, eliding the
// middle of long headers.
func Describe(fields [][]byte) string {
	const show = 8 // fields named in full
	names := make([]string, 0, show+1)
	for i, f := range fields {
		if len(fields) > show && i >= show/2 && i < len(fields)-show/2 {
			if i == show/2 {
				names = append(names, "...")
			}
			continue
		}
		names = append(names, strconv.Quote(string(f)))
	}
	if len(fields) == 1 {
		return "1 column: " + names[0]
	}
	return fmt.Sprintf("%d columns: %s", len(fields), strings.Join(names, ", "))
}
