package release_test

import (
	"archive/tar"
	"compress/gzip"
	"crypto/x509"
	"debug/elf"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/rsgen/rsgen/internal/testenv"
)

// The image's user, as internal/release/ociimage makes it.
const imageUID = 65532

// ociDescriptor is what an OCI index or manifest says of a blob.
type ociDescriptor struct {
	MediaType string
	Digest    string
	Platform  *struct{ OS, Architecture string }
}

// testImage builds the container image from the snapshot's linux
// binaries as release.yml does, checks its index (linux/amd64 and
// linux/arm64), and runs the host's image as a container would: its layers
// unpacked into a directory, rsgen run in it (chroot) as the image's user,
// on testdata/site, directly and by the script of the GitLab template.
func testImage(t *testing.T, rel snapshot) {
	if os.Geteuid() != 0 {
		testenv.Need(t, "root (to chroot into the image and run as its user)", "run the tests as root")
	}
	busybox := os.Getenv("RSGEN_BUSYBOX")
	if busybox == "" {
		testenv.Need(t, "RSGEN_BUSYBOX", "internal/release/busybox.sh DIR; RSGEN_BUSYBOX=DIR")
	}
	layout := filepath.Join(t.TempDir(), "image")
	args := []string{"run", ".", "-out", layout, "-version", rel.version, "-revision", rel.commit, "-created", rel.date,
		"-certs", "/etc/ssl/certs/ca-certificates.crt", "-busybox", busybox}
	bins := binaries(t, rel)
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		args = append(args, p+"="+bins[p])
	}
	command(t, filepath.Join(rel.repo, "internal", "release", "ociimage"), nil, "go", args...)

	var index struct{ Manifests []ociDescriptor }
	readJSON(t, filepath.Join(layout, "index.json"), &index)
	byArch := map[string]ociDescriptor{}
	for _, m := range index.Manifests {
		if m.Platform == nil || m.Platform.OS != "linux" {
			t.Fatalf("index.json: a manifest for %+v, want linux only", m.Platform)
		}
		byArch[m.Platform.Architecture] = m
	}
	if len(byArch) != 2 || byArch["amd64"].Digest == "" || byArch["arm64"].Digest == "" {
		t.Fatalf("index.json lists %+v, want linux/amd64 and linux/arm64", index.Manifests)
	}
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}
	rootfs := map[string]string{}
	for arch, m := range byArch {
		dir := filepath.Join(t.TempDir(), "rootfs")
		cfg := unpack(t, layout, m.Digest, dir)
		rootfs[arch] = dir
		if cfg.Architecture != arch || cfg.Config.User != "65532:65532" || !slices.Equal(cfg.Config.Entrypoint, []string{"/usr/local/bin/rsgen"}) {
			t.Errorf("%s: configuration %+v, want its architecture, user 65532:65532, entrypoint /usr/local/bin/rsgen", arch, cfg)
		}
		f, err := elf.Open(filepath.Join(dir, "usr/local/bin/rsgen"))
		if err != nil {
			t.Fatal(err)
		}
		if f.Machine != machine[arch] {
			t.Errorf("%s: the image's rsgen is for %v", arch, f.Machine)
		}
		f.Close()
	}

	dir := rootfs[runtime.GOARCH]
	passwd, _ := os.ReadFile(filepath.Join(dir, "etc/passwd"))
	if !strings.Contains(string(passwd), "\nrsgen:x:65532:65532:") {
		t.Errorf("/etc/passwd has no user rsgen of uid 65532:\n%s", passwd)
	}
	pem, _ := os.ReadFile(filepath.Join(dir, "etc/ssl/certs/ca-certificates.crt"))
	if pool := x509.NewCertPool(); !pool.AppendCertsFromPEM(pem) {
		t.Error("/etc/ssl/certs/ca-certificates.crt holds no certificate")
	}
	command(t, "", nil, "cp", "-R", filepath.Join(root, "testdata", "site"), filepath.Join(dir, "site"))
	// The site's host: it serves the first build, which the second reads as --previous.
	srv := httptest.NewServer(http.FileServer(http.Dir(filepath.Join(dir, "tmp", "out"))))
	defer srv.Close()
	siteURL := srv.URL + "/"
	inImage := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir, cmd.Env = "/home/rsgen", []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=/home/rsgen", "SITE_URL=" + siteURL}
		cmd.SysProcAttr = &syscall.SysProcAttr{Chroot: dir, Credential: &syscall.Credential{Uid: imageUID, Gid: imageUID}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s in the image: %v\n%s", strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	if got := inImage("/usr/local/bin/rsgen", "version"); !strings.HasPrefix(got, "rsgen "+rel.version+"\n") {
		t.Errorf("rsgen version in the image: %q", got)
	}
	out := inImage("/usr/local/bin/rsgen", "build", "--base-url", siteURL, "--out", "/tmp/out", "--at", "2024-06-01T00:00:00Z", "/site")
	if !strings.Contains(out, "rsgen: published 9 files") {
		t.Errorf("rsgen build in the image said:\n%s", out)
	}
	for _, name := range []string{"resourcesync/resourcelist.xml", "resourcesync/capabilitylist.xml", ".well-known/resourcesync"} {
		info, err := os.Stat(filepath.Join(dir, "tmp/out", name))
		if err != nil {
			t.Errorf("the build in the image wrote no %s: %v", name, err)
			continue
		}
		if uid := info.Sys().(*syscall.Stat_t).Uid; uid != imageUID {
			t.Errorf("%s belongs to uid %d, want the image's user %d", name, uid, imageUID)
		}
	}

	// The GitLab template's script, run by the image's shell as GitLab
	// would, in a directory that holds the site as public/.
	tmpl, err := os.ReadFile(filepath.Join(root, "docs", "ci", "gitlab-rsgen.yml"))
	if err != nil {
		t.Fatal(err)
	}
	_, script, _ := strings.Cut(string(tmpl), "\n  script:\n    - ")
	script, _, _ = strings.Cut(script, "\n")
	if !strings.HasPrefix(script, "rsgen build public ") {
		t.Fatalf("docs/ci/gitlab-rsgen.yml: the script is %q, want rsgen build public …", script)
	}
	out = inImage("/bin/sh", "-c", "set -e; mkdir public; cp -R /site/. public/; "+script+"; ls public/resourcesync")
	if !strings.Contains(out, "resourcelist.xml") || !strings.Contains(out, ": 0 created, 0 updated, 0 deleted;") {
		t.Errorf("the GitLab template's script in the image said:\n%s", out)
	}
}

// imageConfig is the part of an image's configuration the test checks.
type imageConfig struct {
	Architecture string
	Config       struct {
		User       string
		Entrypoint []string
	}
}

// unpack writes the layers of the image whose manifest is digest, in
// order, into dir, with their owners and modes, and returns its
// configuration.
func unpack(t *testing.T, layout, digest, dir string) imageConfig {
	t.Helper()
	blob := func(d string) string { return filepath.Join(layout, "blobs", strings.Replace(d, ":", "/", 1)) }
	var manifest struct {
		Config ociDescriptor
		Layers []ociDescriptor
	}
	readJSON(t, blob(digest), &manifest)
	var cfg imageConfig
	readJSON(t, blob(manifest.Config.Digest), &cfg)
	for _, l := range manifest.Layers {
		if l.MediaType != "application/vnd.oci.image.layer.v1.tar+gzip" {
			t.Fatalf("layer %s: media type %s", l.Digest, l.MediaType)
		}
		f, err := os.Open(blob(l.Digest))
		if err != nil {
			t.Fatal(err)
		}
		zr, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := tar.NewReader(zr)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("layer %s: %v", l.Digest, err)
			}
			p := filepath.Join(dir, filepath.Clean("/"+h.Name))
			switch h.Typeflag {
			case tar.TypeDir:
				err = os.MkdirAll(p, 0o755)
			case tar.TypeReg:
				var data []byte
				if data, err = io.ReadAll(tr); err == nil {
					err = os.WriteFile(p, data, 0o600)
				}
			case tar.TypeSymlink:
				if err = os.Symlink(h.Linkname, p); err == nil {
					err = os.Lchown(p, h.Uid, h.Gid)
				}
				if err != nil {
					t.Fatal(err)
				}
				continue
			default:
				t.Fatalf("layer %s: %s is of tar type %c", l.Digest, h.Name, h.Typeflag)
			}
			if err == nil {
				err = os.Chown(p, h.Uid, h.Gid)
			}
			if err == nil {
				err = os.Chmod(p, os.FileMode(h.Mode).Perm()|modeBits(h.Mode))
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		f.Close()
	}
	return cfg
}

// modeBits are the sticky, setuid and setgid bits of a tar mode as an
// os.FileMode (/tmp is 1777).
func modeBits(mode int64) os.FileMode {
	var m os.FileMode
	if mode&0o1000 != 0 {
		m |= os.ModeSticky
	}
	if mode&0o2000 != 0 {
		m |= os.ModeSetgid
	}
	if mode&0o4000 != 0 {
		m |= os.ModeSetuid
	}
	return m
}
