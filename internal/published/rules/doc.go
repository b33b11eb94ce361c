// Package rules is what the two readers of a published site share: rsgen
// validate, which reports every rule a document breaks, and
// internal/published/previous, which refuses an earlier build that breaks
// one it relies on. It names the capabilities (ResourceSync 1.1, its
// Archives and Notification specifications), gives Table 4 of Appendix A,
// and judges the rules both readers enforce, once: a judge returns what is
// wrong in the rule's words, or "". Whether that is an error, a warning or
// a refusal is the reader's call.
package rules
