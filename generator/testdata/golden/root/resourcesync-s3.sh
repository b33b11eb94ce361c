#!/bin/sh
# Written by rsgen (--host s3); rsgen rewrites this file at every build: change its template instead.
#
# Uploads this directory to S3 with the AWS CLI, giving every ResourceSync document the
# Content-Type application/xml (S3 would serve the extension-less /.well-known/resourcesync as
# application/octet-stream) and every published file the type its Resource List gives:
#
#     sh resourcesync-s3.sh s3://BUCKET[/PREFIX] [aws s3 options, e.g. --profile NAME]
#
# The resources go first, then the documents that list them, the Source Description last: a
# Destination reading meanwhile never finds a document that lists what is not there yet.
# Hidden files and rsgen's configuration for hosts are not uploaded.
set -eu
dest=${1:?usage: sh resourcesync-s3.sh s3://BUCKET[/PREFIX] [aws s3 options]}
shift
dest=${dest%/}
cd "$(dirname "$0")"

# 1. The site, types guessed by the AWS CLI from the extensions.
aws s3 sync . "$dest" --exclude '.*' --exclude '*/.*' --exclude 'resourcesync/*' --exclude 'resourcesync-s3.sh' --exclude 'resourcesync.nginx.conf' --exclude '_headers' "$@"
# 2. Published files whose type the AWS CLI may guess otherwise than the Resource List gives it.
aws s3 cp ./data/records.jsonl "$dest/"data/records.jsonl --content-type application/jsonl "$@"
aws s3 cp ./'docs/annual report/README' "$dest/"'docs/annual report/README' --content-type text/plain "$@"

# 3. The landing page, robots.txt lines, HTML head link and dump packages.
aws s3 sync resourcesync "$dest/resourcesync" --exclude '*.xml' "$@"
# 4. The documents that capability documents list: parts of indexes, manifests.
aws s3 sync resourcesync "$dest/resourcesync" --exclude '*' --include '*.xml' --exclude resourcelist.xml --exclude capabilitylist.xml --content-type application/xml "$@"
# 5. The capability documents, the Capability List, the Source Description.
aws s3 cp resourcesync/resourcelist.xml "$dest/resourcesync/"resourcelist.xml --content-type application/xml "$@"
aws s3 cp resourcesync/capabilitylist.xml "$dest/resourcesync/"capabilitylist.xml --content-type application/xml "$@"
aws s3 cp .well-known/resourcesync "$dest/.well-known/resourcesync" --content-type application/xml "$@"
# 6. Documents of earlier builds that this one no longer has.
aws s3 sync resourcesync "$dest/resourcesync" --delete --exclude '*' --include '*.xml' "$@"
