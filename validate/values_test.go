package validate

import "testing"

func TestLocSet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		locs []string
		dups map[int]int // index of a repeat → line of its first entry
	}{
		{"sorted", []string{"a", "b", "c"}, nil},
		{"repeat in order", []string{"a", "b", "b", "c"}, map[int]int{2: 2}},
		{"out of order", []string{"b", "c", "a", "c", "b", "d", "a"}, map[int]int{3: 2, 4: 1, 6: 3}},
		{"first out of order is a repeat", []string{"a", "b", "a"}, map[int]int{2: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s locSet
			for i, loc := range tt.locs {
				first, dup := s.add(loc, i+1)
				want, wantDup := tt.dups[i]
				if dup != wantDup || dup && first != want {
					t.Errorf("add(%q) on line %d = %d, %v; want %d, %v", loc, i+1, first, dup, want, wantDup)
				}
			}
		})
	}
}
