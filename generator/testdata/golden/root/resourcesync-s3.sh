#!/bin/sh
# Written by rsgen (--host s3); rsgen rewrites this file at every build: change its template instead.
#
# Makes s3://BUCKET[/PREFIX] a faithful mirror of this directory with the AWS CLI: every file
# uploaded with the Content-Type its Resource List gives (every ResourceSync document as
# application/xml: S3 would serve the extension-less /.well-known/resourcesync as
# application/octet-stream), and what this directory no longer has deleted:
#
#     sh resourcesync-s3.sh s3://BUCKET[/PREFIX] [aws s3 options, e.g. --profile NAME]
#
# Give it a bucket or prefix of its own: what this directory does not have is deleted there
# (hidden keys aside; only under resourcesync/ when the resources are not in this directory).
# The order keeps every document a Destination may read at any moment true to what is there:
# content and dump packages first, then the documents that list them, the Capability List,
# the Source Description last; deletions after that, once no document lists what they remove.
# A file updated in place is the one thing no order can hide: a Destination that read the
# previous lists before it changed finds new bytes under its old digest, and the next Change
# List tells it so. rsgen's configuration for hosts is neither uploaded nor deleted, nor are
# hidden files, but those the Resource List lists (rsgen build --hidden), which are uploaded
# and, once gone, left in the bucket: remove those yourself.
set -eu
dest=${1:?usage: sh resourcesync-s3.sh s3://BUCKET[/PREFIX] [aws s3 options]}
shift
dest=${dest%/}
cd "$(dirname "$0")"

# 1. The site, types guessed by the AWS CLI from the extensions but for the files of step 2.
aws s3 sync . "$dest" --exclude '.*' --exclude '*/.*' --exclude 'resourcesync/*' --exclude resourcesync-s3.sh --exclude resourcesync.nginx.conf --exclude _headers --exclude _headers.rsgen --no-follow-symlinks --exclude=data/records.jsonl --exclude='docs/annual report/README' "$@"
# 2. Published files whose type the AWS CLI would guess otherwise than the Resource List gives it.
aws s3 cp ./data/records.jsonl "$dest/"data/records.jsonl --content-type application/jsonl "$@"
aws s3 cp ./'docs/annual report/README' "$dest/"'docs/annual report/README' --content-type text/plain "$@"
# 3. The dump packages.
aws s3 sync resourcesync "$dest/resourcesync" --exclude '*.xml' --exclude '.*' --exclude index.html --exclude robots.txt --exclude head.html "$@"
# 4. The documents that capability documents list: parts of indexes, manifests, Change Lists.
aws s3 sync resourcesync "$dest/resourcesync" --exclude '*' --include '*.xml' --exclude resourcelist.xml --exclude capabilitylist.xml --content-type application/xml "$@"
# 5. The capability documents, the Capability List, the Source Description, one after the other.
aws s3 cp resourcesync/resourcelist.xml "$dest/resourcesync/"resourcelist.xml --content-type application/xml "$@"
aws s3 cp resourcesync/capabilitylist.xml "$dest/resourcesync/"capabilitylist.xml --content-type application/xml "$@"
aws s3 cp .well-known/resourcesync "$dest/.well-known/resourcesync" --content-type application/xml "$@"
# 6. The landing page, robots.txt lines and HTML head link, which link to the documents.
aws s3 sync resourcesync "$dest/resourcesync" --exclude '*' --include index.html --include robots.txt --include head.html "$@"
# 7. Deletions: documents and packages of earlier builds that this one no longer has, then removed content
#    (--size-only: all is uploaded by now, and a clock ahead of S3's must not upload again untyped;
#    rsgen's own state, such as .rsgen-manifest.json, is never uploaded).
aws s3 sync resourcesync "$dest/resourcesync" --delete --size-only --exclude '.*' "$@"
aws s3 sync . "$dest" --delete --size-only --exclude '.*' --exclude '*/.*' --exclude 'resourcesync/*' --exclude resourcesync-s3.sh --exclude resourcesync.nginx.conf --exclude _headers --exclude _headers.rsgen --no-follow-symlinks --exclude=data/records.jsonl --exclude='docs/annual report/README' "$@"
