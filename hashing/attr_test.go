package hashing

import (
	"bytes"
	"testing"
)

func TestIsAttr(t *testing.T) {
	set := Set{MD5, SHA256}
	h := NewHasher(set)
	_, sum, err := h.Sum(nil, bytes.NewReader([]byte("hello\n")))
	if err != nil {
		t.Fatal(err)
	}
	attr := set.Format(sum)
	if !set.IsAttr(attr, sum) {
		t.Fatalf("IsAttr(%q) = false for its own sum", attr)
	}
	other := bytes.Clone(sum)
	other[len(other)-1] ^= 1
	for _, bad := range []string{
		"", attr + " ", " " + attr, attr[:len(attr)-1], attr + "0",
		set.Format(other),
		Set{SHA256, MD5}.Format(append(sum[16:len(sum):len(sum)], sum[:16]...)), // other order
		"MD5" + attr[3:], // rsgen writes lower case
		attr[:len(attr)-64] + string(bytes.ToUpper([]byte(attr[len(attr)-64:]))),
		attr[:len(attr)-65] + "  " + attr[len(attr)-64:],
	} {
		if set.IsAttr(bad, sum) {
			t.Errorf("IsAttr(%q) = true", bad)
		}
	}
	if set.IsAttr(attr, sum[:len(sum)-1]) {
		t.Error("IsAttr with a short sum = true")
	}
	if testing.AllocsPerRun(100, func() { set.IsAttr(attr, sum) }) != 0 {
		t.Error("IsAttr allocates")
	}
}

func TestHexIs(t *testing.T) {
	for _, c := range []struct {
		hex  string
		d    []byte
		want bool
	}{
		{"00ff10", []byte{0, 0xff, 0x10}, true},
		{"00FF10", []byte{0, 0xff, 0x10}, false},
		{"00ff1", []byte{0, 0xff, 0x10}, false},
		{"", nil, true},
		{"00ff11", []byte{0, 0xff, 0x10}, false},
	} {
		if got := HexIs(c.hex, c.d); got != c.want {
			t.Errorf("HexIs(%q, %x) = %v", c.hex, c.d, got)
		}
	}
}

func TestSetDigest(t *testing.T) {
	set := Set{SHA1, MD5}
	sum := make([]byte, set.SumSize())
	for i := range sum {
		sum[i] = byte(i)
	}
	if d, ok := set.Digest(sum, MD5); !ok || !bytes.Equal(d, sum[20:]) {
		t.Errorf("Digest(MD5) = %x, %v", d, ok)
	}
	if d, ok := set.Digest(sum, SHA1); !ok || !bytes.Equal(d, sum[:20]) {
		t.Errorf("Digest(SHA1) = %x, %v", d, ok)
	}
	if d, ok := set.Digest(sum, SHA256); ok {
		t.Errorf("Digest(SHA256) = %x, true; the set has none", d)
	}
}
