package inventory

import (
	"bufio"
	"io"
	"net/url"
	"strings"
)

// A Job writes the manifest of a Compute checksum job, for the user to
// submit (aws s3control create-job … --manifest with the format
// S3BatchOperations_CSV_20180820): a CSV line "bucket,key" or
// "bucket,key,versionId" for each object, the key URL-encoded as the
// format requires.
type Job struct {
	w      *bufio.Writer
	bucket string
	N      int // the objects written
}

// NewJob returns a Job writing to w the objects of bucket.
func NewJob(w io.Writer, bucket string) *Job {
	return &Job{w: bufio.NewWriter(w), bucket: bucket}
}

// Add writes the line of the object at key (of version, "" if the bucket
// is not versioned).
func (j *Job) Add(key, version string) error {
	// QueryEscape encodes every byte but the unreserved ones; a space is
	// written %20, which no decoder takes for anything else.
	line := j.bucket + "," + strings.ReplaceAll(url.QueryEscape(key), "+", "%20")
	if version != "" {
		line += "," + version
	}
	j.N++
	_, err := j.w.WriteString(line + "\n")
	return err
}

// Flush writes what is buffered.
func (j *Job) Flush() error { return j.w.Flush() }
