// Package hostfiles writes into a build's stage the files that are not
// ResourceSync documents but make them work where they are served: the
// pages rsgen always writes (a landing page, the robots.txt line, the HTML
// head link) and the configuration of the static hosts asked for (content
// types, discovery links, the S3 upload script), rendered by package
// hosting from the templates. A configuration file the user wrote keeps
// its own lines, with rsgen's block in it.
//
// The walk of the data is: each set's documents, as staged, and its
// resources (Set) → hosting.Data → the templates → its pages staged, and
// its Part; the Parts of every set (Site) → the hosts' files and, for a
// site of sets, its landing page, staged. One unnamed Part is a build
// without sets, whose documents and pages are in resourcesync/ itself.
//
// A Set belongs to one build; its functions run from one goroutine, once
// the build's documents are staged. Site.Write runs once, after them.
package hostfiles
