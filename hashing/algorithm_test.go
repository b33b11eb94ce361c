package hashing

import (
	"bytes"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"

	"github.com/zeebo/blake3"
)

// Known digests of "" and "abc": RFC 1321 (md5), FIPS 180-2 (sha-1,
// sha-256) and the BLAKE3 reference implementation's test vectors.
var vectors = []struct {
	alg   Algorithm
	input string
	hex   string
}{
	{MD5, "", "d41d8cd98f00b204e9800998ecf8427e"},
	{MD5, "abc", "900150983cd24fb0d6963f7d28e17f72"},
	{SHA1, "", "da39a3ee5e6b4b0d3255bfef95601890afd80709"},
	{SHA1, "abc", "a9993e364706816aba3e25717850c26c9cd0d89d"},
	{SHA256, "", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
	{SHA256, "abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
	{BLAKE3, "", "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"},
	{BLAKE3, "abc", "6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85"},
}

func TestKnownDigests(t *testing.T) {
	for _, v := range vectors {
		t.Run(v.alg.String()+"/"+v.input, func(t *testing.T) {
			h := NewHasher(Set{v.alg})
			n, sum, err := h.Sum(nil, strings.NewReader(v.input))
			if err != nil {
				t.Fatal(err)
			}
			if n != int64(len(v.input)) {
				t.Errorf("read %d bytes, want %d", n, len(v.input))
			}
			if got := hex.EncodeToString(sum); got != v.hex {
				t.Errorf("digest %s, want %s", got, v.hex)
			}
			want := v.alg.String() + ":" + v.hex
			if got := (Set{v.alg}).Format(sum); got != want {
				t.Errorf("Format = %q, want %q", got, want)
			}
		})
	}
}

// TestLargeInput checks the digests of an input several read buffers long
// against the standard library's one-shot functions.
func TestLargeInput(t *testing.T) {
	data := make([]byte, 3*bufSize+12345)
	for i := range data {
		data[i] = byte(i*7 + i>>9)
	}
	m, s1, s256, b3 := md5.Sum(data), sha1.Sum(data), sha256.Sum256(data), blake3.Sum256(data)
	want := bytes.Join([][]byte{m[:], s1[:], s256[:], b3[:]}, nil)
	h := NewHasher(Set{MD5, SHA1, SHA256, BLAKE3})
	// A reader that returns odd-sized chunks crosses the buffer boundaries.
	n, sum, err := h.Sum(nil, &chunkReader{data: data, chunk: 100003})
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(len(data)) || !bytes.Equal(sum, want) {
		t.Errorf("got %d bytes, sum %x; want %d, %x", n, sum, len(data), want)
	}
	if !bytes.Equal(h.Head(), data[:SniffLen]) {
		t.Errorf("Head is not the first %d bytes", SniffLen)
	}
}

type chunkReader struct {
	data  []byte
	chunk int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), r.chunk)], r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestFormat(t *testing.T) {
	sum := func(parts ...string) []byte {
		var b []byte
		for _, p := range parts {
			d, err := hex.DecodeString(p)
			if err != nil {
				t.Fatal(err)
			}
			b = append(b, d...)
		}
		return b
	}
	md5Empty := "d41d8cd98f00b204e9800998ecf8427e"
	sha256Empty := "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	tests := []struct {
		name string
		set  Set
		sum  []byte
		want string
	}{
		{"sha-256", Set{SHA256}, sum(sha256Empty), "sha-256:" + sha256Empty},
		{"md5 then sha-256", Set{MD5, SHA256}, sum(md5Empty, sha256Empty), "md5:" + md5Empty + " sha-256:" + sha256Empty},
		{"order of the set kept", Set{SHA256, MD5}, sum(sha256Empty, md5Empty), "sha-256:" + sha256Empty + " md5:" + md5Empty},
		{"lower-case hex", Set{MD5}, bytes.Repeat([]byte{0xAB}, 16), "md5:" + strings.Repeat("ab", 16)},
		{"all four", Set{MD5, SHA1, SHA256, BLAKE3}, bytes.Repeat([]byte{0x01}, 100),
			"md5:" + strings.Repeat("01", 16) + " sha-1:" + strings.Repeat("01", 20) + " sha-256:" + strings.Repeat("01", 32) + " blake3:" + strings.Repeat("01", 32)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.set.Format(tt.sum); got != tt.want {
				t.Errorf("Format = %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("wrong length panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("Format of a short sum did not panic")
			}
		}()
		Set{SHA256}.Format(make([]byte, 16))
	})
}

func TestParseSet(t *testing.T) {
	tests := []struct {
		in      string
		want    Set
		wantErr string
	}{
		{in: "sha-256", want: Set{SHA256}},
		{in: "md5,sha-256", want: Set{MD5, SHA256}},
		{in: "blake3, SHA-1 ,md5", want: Set{BLAKE3, SHA1, MD5}},
		{in: "sha256,sha1", want: Set{SHA256, SHA1}},
		{in: "md5,,sha-256,", want: Set{MD5, SHA256}},
		{in: "", wantErr: "no hash algorithm given"},
		{in: " , ", wantErr: "no hash algorithm given"},
		{in: "sha-512", wantErr: `unknown hash algorithm "sha-512"`},
		{in: "md5,crc32", wantErr: `unknown hash algorithm "crc32"`},
		{in: "md5,MD5", wantErr: "md5 is listed twice"},
		{in: "sha256,sha-256", wantErr: "sha-256 is listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseSet(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseSet(%q) = %v, %v; want error containing %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.String() != tt.want.String() {
				t.Errorf("ParseSet(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if again, err := ParseSet(got.String()); err != nil || again.String() != got.String() {
				t.Errorf("ParseSet(String()) = %v, %v; want %s", again, err, got)
			}
		})
	}
}

func TestAlgorithmSizes(t *testing.T) {
	for a := range numAlgorithms {
		t.Run(a.String(), func(t *testing.T) {
			if got := len(a.New().Sum(nil)); got != a.Size() {
				t.Errorf("Size = %d, digest has %d bytes", a.Size(), got)
			}
		})
	}
	if got := (Set{MD5, SHA1, SHA256, BLAKE3}).SumSize(); got != 16+20+32+32 {
		t.Errorf("SumSize of all = %d", got)
	}
}

// TestOneTable checks that every token of the table is found by Lookup and
// that --hash takes only the publishable ones: a Destination must be able
// to check what rsgen publishes, and the validator must know the others.
func TestOneTable(t *testing.T) {
	for a := range numAlgorithms {
		got, ok := Lookup(a.String())
		if !ok || got != a {
			t.Errorf("Lookup(%q) = %v, %v", a.String(), got, ok)
		}
		_, err := ParseAlgorithm(a.String())
		if (err == nil) != a.Publishable() {
			t.Errorf("ParseAlgorithm(%q) error %v, publishable %v", a.String(), err, a.Publishable())
		}
	}
	for _, tok := range []string{"SHA-256", "sha256", "sha-3", ""} {
		if a, ok := Lookup(tok); ok {
			t.Errorf("Lookup(%q) = %v, want none (attribute tokens are lower case, dashed)", tok, a)
		}
	}
	if got, want := Known(), "md5, sha-1, sha-256, blake3, sha-224, sha-384, sha-512"; got != want {
		t.Errorf("Known() = %q, want %q", got, want)
	}
}

// TestAllPublishable pins the values the hash cache stores in its files.
func TestAllPublishable(t *testing.T) {
	if got, want := AllPublishable().String(), "md5,sha-1,sha-256,blake3"; got != want {
		t.Errorf("AllPublishable() = %s, want %s", got, want)
	}
	for i, a := range AllPublishable() {
		if int(a) != i || !a.Publishable() {
			t.Errorf("AllPublishable()[%d] = %v (value %d)", i, a, a)
		}
	}
}
