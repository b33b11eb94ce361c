// Package bucket reads an S3 bucket (or any store that speaks the S3 API)
// as the source of a build: it sets up the client the way every AWS tool
// does, lists the objects under a prefix in the order of their keys (the
// folders under it listed in parallel), takes
// the digests the store keeps of an object, and streams an object's bytes.
//
// Configuration is the AWS SDK's standard chain (environment, shared
// config and credentials files, profiles, SSO, web identity, instance
// roles); AWS_ENDPOINT_URL_S3 or endpoint_url points it at another store,
// which is then addressed path-style. Credentials never pass through this
// package's API, its errors or its output. Throttling (503 SlowDown) and
// transient errors are retried with backoff by the SDK's retryer.
//
// Digests from the store: sha-256 and sha-1 from an object's full-object
// checksum (HeadObject with ChecksumMode ENABLED), never from a composite
// one of a multipart upload ("…-N"); md5 from the ETag of an object
// uploaded in one part and not encrypted with SSE-KMS or SSE-C, the only
// ETag that is an MD5.
//
// An S3 Inventory of a bucket too large to list is read by package
// internal/inputs/inventory.
//
// A Bucket may be used from several goroutines at once.
package bucket
