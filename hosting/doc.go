// Package hosting makes rsgen's output serve right on static hosts: the
// configuration files rsgen build --host writes (.nojekyll for GitHub
// Pages, _headers for Netlify and Cloudflare Pages, an nginx snippet, an
// Apache .htaccess, an upload script for S3), the pages it always writes
// (a landing page, the robots.txt line, the HTML head link), and a
// SiteHandler, which serves an output directory the way a correctly configured host does
// (rsgen serve), confined to it.
//
// Configuration files carry Marker in their first lines: CheckConflicts
// refuses to let a build overwrite a file of the same name without it,
// unless it is a _headers or .htaccess with a block for rsgen (BlockBegin,
// BlockEnd), into which Merge puts rsgen's part, keeping the user's lines.
// Check says, when a build is configured, which hosts cannot serve the
// documents at their URL (paths.go: how each host matches paths).
// Render, CheckConflicts and Merge may be called from several goroutines;
// a SiteHandler serves requests concurrently.
package hosting
