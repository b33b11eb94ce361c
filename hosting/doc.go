// Package hosting makes rsgen's output serve right on static hosts: the
// configuration files of rsgen build --host (.nojekyll for GitHub Pages,
// _headers for Netlify and Cloudflare Pages, an nginx snippet, an Apache
// .htaccess, an S3 upload script), the pages it always writes (a landing
// page, the robots.txt line, the HTML head link), and a SiteHandler that
// serves an output directory as a correctly configured host does (rsgen
// serve), confined to it.
//
// Configuration files carry Marker in their first lines: CheckConflicts
// refuses to overwrite a file of the same name without it, unless it is a
// _headers or .htaccess with a block for rsgen (BlockBegin, BlockEnd),
// into which Merge puts rsgen's part. Check says which hosts cannot serve
// the documents at their URL (paths.go). Render, CheckConflicts and Merge
// may be called from several goroutines; a SiteHandler serves requests
// concurrently.
package hosting
