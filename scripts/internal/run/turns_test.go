package run

import (
	"errors"
	"slices"
	"testing"
)

func TestTurns(t *testing.T) {
	var got []int
	err := Turns(3, 3, func(round, i int) error {
		got = append(got, round*10+i)
		return nil
	})
	if want := []int{0, 1, 2, 12, 11, 10, 20, 21, 22}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Turns(3, 3) called %v, %v; want %v", got, err, want)
	}

	got = nil
	if err := Turns(0, 2, func(round, i int) error { got = append(got, round*10+i); return nil }); err != nil || !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Turns(0, 2) called %v, %v; want one round", got, err)
	}

	stop := errors.New("stop")
	got = nil
	err = Turns(4, 2, func(round, i int) error {
		got = append(got, round*10+i)
		if round == 1 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || !slices.Equal(got, []int{0, 1, 11}) {
		t.Errorf("Turns after an error called %v, %v; want [0 1 11], stop", got, err)
	}
}

// TestPairedRatio checks that the ratio is the median of the rounds'
// ratios, not the ratio of the medians, over the rounds both have.
func TestPairedRatio(t *testing.T) {
	if got := PairedRatio([]float64{2, 3, 10}, []float64{1, 3, 4}); got != 2 {
		t.Errorf("PairedRatio = %v, want 2 (of 2, 1, 2.5)", got)
	}
	if got := PairedRatio([]float64{2, 3}, []float64{4}); got != 0.5 {
		t.Errorf("PairedRatio of unequal lengths = %v, want 0.5", got)
	}
	if got := PairedRatio(nil, nil); got != 0 {
		t.Errorf("PairedRatio of nothing = %v, want 0", got)
	}
}
