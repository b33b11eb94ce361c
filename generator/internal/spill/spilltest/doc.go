// Package spilltest gives the tests of the build's components a spill
// area of their own and the resources of a spool. Only tests import it.
package spilltest
