// Package release holds no code: its tests prove the release of rsgen as
// a user gets it. They make a GoReleaser snapshot of a copy of the
// checkout (.goreleaser.yaml) twice and compare the two, build the
// container image from it as .github/workflows/release.yml does (with the
// program in ociimage, a module of its own) and run the rsgen inside it,
// and run the GitHub Action's script (.github/action/run.sh) against the
// snapshot served from 127.0.0.1. They also keep every recipe pinned: no
// @latest in README.md or docs/.
//
// The snapshot takes minutes and needs goreleaser, so those tests are long
// tests (RSGEN_LONG_TESTS=1, as .ci/run sets it); with CI=true a missing
// tool fails them rather than skips them.
package release
