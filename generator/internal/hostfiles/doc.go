// Package hostfiles writes into a build's stage the files that are not
// ResourceSync documents but make them work where they are served: the
// pages rsgen always writes (a landing page, the robots.txt line, the HTML
// head link) and the configuration of the static hosts asked for, rendered
// by package hosting from the templates. A configuration file the user
// wrote keeps its own lines, with rsgen's block in it.
//
// Each set's documents and resources give its pages and its [Part]
// ([Set.Part]); the Parts of every set give the hosts' files and, for a
// site of sets, its landing page ([Site.Write]). Both run from one
// goroutine, once the documents are staged.
package hostfiles
