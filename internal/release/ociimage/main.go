// Command ociimage writes rsgen's container image, for several platforms,
// as an OCI image layout directory, without a Docker daemon and without
// pulling a base image: from an empty image plus two layers it makes.
//
//	go run . -out DIR -version v0.1.0 -revision HASH -created 2026-11-27T14:00:00Z \
//	    -certs /etc/ssl/certs/ca-certificates.crt -busybox BUSYBOX \
//	    linux/amd64=../../../dist/rsgen_linux_amd64_v1/rsgen linux/arm64=…/rsgen
//
// Each image holds a base layer (/etc/passwd and /etc/group with the
// non-root user rsgen, uid and gid 65532; the CA certificates, so that
// --previous https://… can be read; /tmp; the user's home), a layer with
// Debian's static busybox as /bin/sh and the usual commands (GitLab CI,
// Woodpecker and Tekton run a job's script with /bin/sh; ../busybox.sh
// fetches it into BUSYBOX/ARCH/busybox), and a layer with the static
// binary at /usr/local/bin/rsgen, the entrypoint. Every
// time in the layers and the configuration is -created, so that the same
// binaries give the same image, byte for byte. DIR's index.json is the
// multi-platform image index: "crane push --index DIR REF" pushes it.
//
// It is a module of its own so that rsgen's go.mod does not carry
// go-containerregistry and its dependencies: it is part of the release,
// not of rsgen.
package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The user the image runs as: 65532, as distroless images' nonroot.
const (
	uid      = 65532
	userName = "rsgen"
	home     = "/home/rsgen"
	binPath  = "/usr/local/bin/rsgen"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage: error:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("ociimage", flag.ContinueOnError)
	out := fs.String("out", "", "the OCI image layout directory to write (must not exist)")
	version := fs.String("version", "", "the version of rsgen, for the image's labels")
	revision := fs.String("revision", "", "the commit, for the image's labels")
	created := fs.String("created", "", "the time of every file and of the image (RFC 3339): the commit's time")
	certs := fs.String("certs", "/etc/ssl/certs/ca-certificates.crt", "the CA certificates (PEM) to put in the image")
	busybox := fs.String("busybox", "", "the directory of a static busybox per architecture, ARCH/busybox (../busybox.sh)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || *created == "" || *busybox == "" || fs.NArg() == 0 {
		return errors.New("usage: ociimage -out DIR -created TIME -busybox DIR [-version V] [-revision R] [-certs FILE] OS/ARCH=BINARY...")
	}
	at, err := time.Parse(time.RFC3339, *created)
	if err != nil {
		return fmt.Errorf("-created: %w", err)
	}
	if _, err := os.Stat(*out); err == nil {
		return fmt.Errorf("%s exists: give a new directory", *out)
	}
	pem, err := os.ReadFile(*certs)
	if err != nil {
		return err
	}
	base, err := layer(at, baseFiles(pem))
	if err != nil {
		return err
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, arg := range fs.Args() {
		platform, binary, ok := strings.Cut(arg, "=")
		osName, arch, ok2 := strings.Cut(platform, "/")
		if !ok || !ok2 {
			return fmt.Errorf("%q: want OS/ARCH=BINARY", arg)
		}
		exe, err := os.ReadFile(binary)
		if err != nil {
			return err
		}
		bin, err := layer(at, []file{{name: binPath, mode: 0o755, data: exe}})
		if err != nil {
			return err
		}
		bb, err := os.ReadFile(filepath.Join(*busybox, arch, "busybox"))
		if err != nil {
			return err
		}
		shell, err := layer(at, shellFiles(bb))
		if err != nil {
			return err
		}
		img, err := image(at, osName, arch, *version, *revision, base, shell, bin)
		if err != nil {
			return fmt.Errorf("%s: %w", platform, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: osName, Architecture: arch}},
		})
	}
	_, err = layout.Write(*out, idx)
	return err
}

// image is the image of one platform: an empty one, the two layers, and
// the configuration that runs rsgen as the user rsgen.
func image(at time.Time, osName, arch, version, revision string, layers ...v1.Layer) (v1.Image, error) {
	img := mutate.ConfigMediaType(mutate.MediaType(empty.Image, types.OCIManifestSchema1), types.OCIConfigJSON)
	for i, l := range layers {
		what := []string{"the user rsgen, the CA certificates", "busybox, for /bin/sh", "the rsgen binary"}[i]
		var err error
		img, err = mutate.Append(img, mutate.Addendum{Layer: l, History: v1.History{Created: v1.Time{Time: at}, CreatedBy: "ociimage: " + what}})
		if err != nil {
			return nil, err
		}
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture, cfg.Created = osName, arch, v1.Time{Time: at}
	cfg.Config.User = fmt.Sprintf("%d:%d", uid, uid)
	cfg.Config.Entrypoint = []string{binPath}
	cfg.Config.WorkingDir = home
	cfg.Config.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home}
	cfg.Config.Labels = map[string]string{
		"org.opencontainers.image.title":    "rsgen",
		"org.opencontainers.image.source":   "https://github.com/rsgen/rsgen",
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.version":  version,
		"org.opencontainers.image.revision": revision,
		"org.opencontainers.image.created":  at.UTC().Format(time.RFC3339),
	}
	return mutate.ConfigFile(img, cfg)
}

// file is a member of a layer: a directory if dir, a symbolic link to
// link if set; owner is its uid and gid.
type file struct {
	name  string
	mode  int64
	dir   bool
	link  string
	owner int
	data  []byte
}

// baseFiles are the files of the base layer.
func baseFiles(pem []byte) []file {
	passwd := "root:x:0:0:root:/root:/sbin/nologin\n" +
		fmt.Sprintf("%s:x:%d:%d:%s:%s:/sbin/nologin\n", userName, uid, uid, userName, home)
	group := "root:x:0:\n" + fmt.Sprintf("%s:x:%d:\n", userName, uid)
	return []file{
		{name: "/etc", mode: 0o755, dir: true},
		{name: "/etc/passwd", mode: 0o644, data: []byte(passwd)},
		{name: "/etc/group", mode: 0o644, data: []byte(group)},
		{name: "/etc/ssl", mode: 0o755, dir: true},
		{name: "/etc/ssl/certs", mode: 0o755, dir: true},
		{name: "/etc/ssl/certs/ca-certificates.crt", mode: 0o644, data: pem},
		{name: "/home", mode: 0o755, dir: true},
		{name: home, mode: 0o755, dir: true, owner: uid},
		{name: "/root", mode: 0o700, dir: true},
		{name: "/tmp", mode: 0o1777, dir: true},
		{name: "/usr", mode: 0o755, dir: true},
		{name: "/usr/local", mode: 0o755, dir: true},
		{name: "/usr/local/bin", mode: 0o755, dir: true},
	}
}

// applets are the commands of busybox the image offers, each a link to
// /bin/busybox: a shell and what scripts of CI jobs commonly call.
var applets = []string{"[", "awk", "basename", "cat", "chmod", "cp", "cut", "date", "dirname", "echo", "env", "false",
	"find", "grep", "gunzip", "gzip", "head", "id", "ln", "ls", "mkdir", "mktemp", "mv", "printf", "pwd", "readlink",
	"rm", "rmdir", "sed", "sh", "sha256sum", "sleep", "sort", "tail", "tar", "tee", "test", "touch", "tr", "true",
	"uname", "wc", "wget", "xargs"}

// shellFiles are the files of the shell layer: busybox and its links.
func shellFiles(busybox []byte) []file {
	files := []file{
		{name: "/bin", mode: 0o755, dir: true},
		{name: "/bin/busybox", mode: 0o755, data: busybox},
		{name: "/usr/bin", mode: 0o755, dir: true},
		{name: "/usr/bin/env", link: "/bin/busybox"},
	}
	for _, a := range applets {
		files = append(files, file{name: "/bin/" + a, link: "busybox"})
	}
	return files
}

// layer is a gzipped tar layer of files, each dated at.
func layer(at time.Time, files []file) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		h := &tar.Header{Name: strings.TrimPrefix(f.name, "/"), Mode: f.mode, ModTime: at, Uid: f.owner, Gid: f.owner,
			Typeflag: tar.TypeReg, Size: int64(len(f.data))}
		switch {
		case f.dir:
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
		case f.link != "":
			h.Typeflag, h.Linkname, h.Mode = tar.TypeSymlink, f.link, 0o777
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil },
		tarball.WithMediaType(types.OCILayer))
}
