// Package listwriter is the one splitter of rsgen's documents: Resource
// Lists, Change Lists, Resource Dumps and the indexes over their parts all
// go through a [Writer], which alone measures a document against the limits
// of section 7 (50,000 entries, 50 MB, or lower [Limits]).
//
// A Writer takes entries one at a time ([Writer.Add]) and cuts a part when
// the next entry would pass the limits. The first part's entries go to a
// body file, because its header and name depend on how the list ends: a
// list that ends inside it is one document (name.xml), else it is the
// first of the parts (name-00001.xml, with rel="index"). Later parts are
// written directly, or through a body file too when their header carries
// an interval that their last entry's successor decides (change
// documents, [Options.Time]). [Writer.Close] writes the index over the
// parts, last, and says what was written. [FitOldest] is the same measure
// for a document that may not be split and drops its oldest entries
// instead.
//
// Memory: the rendering of one entry, and one [Part] per part written (at
// most the 50,000 an index may list). No entry is held.
//
// Ownership: the caller owns the [Files] the documents and body files are
// created in, and the entries it passes to Add, which the Writer does not
// keep after Add returns (it keeps copies of the strings of the <rs:md> of
// the first and last entries of the part it is writing). Body files are
// removed as soon as their part is written, or by Close or Abort on
// failure; documents written before a failure are left to the caller,
// whose stage is discarded.
//
// A Writer is not safe for concurrent use. Writers over distinct names may
// run concurrently if their Files' methods may be called from several
// goroutines.
package listwriter
