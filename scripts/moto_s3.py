#!/opt/marginalia-venv/bin/python
"""Configure a running moto server as an S3 bucket shared by devices, each with a scoped IAM user.

How to run
----------
    /opt/marginalia-venv/bin/moto_server -H 127.0.0.1 -p PORT &     # the caller starts it
    /opt/marginalia-venv/bin/python scripts/moto_s3.py --endpoint http://127.0.0.1:PORT \\
        --bucket NAME --device ID [--device ID ...]

Needs boto3 (as in the venv /opt/marginalia-venv, with moto[server] 5.2.5).  Starts nothing.
Creates the bucket (us-east-1) and, per device id, an IAM user `device-ID` with one fresh access
key (older keys of that user are deleted) and one inline policy allowing:

  * s3:ListBucket on arn:aws:s3:::NAME (any prefix: each device lists every device's directory);
  * s3:GetObject on arn:aws:s3:::NAME/* (HEAD of an object is s3:GetObject too);
  * s3:PutObject, s3:DeleteObject and s3:AbortMultipartUpload on arn:aws:s3:::NAME/devices/ID/*
    (moto counts CreateMultipartUpload, UploadPart and CompleteMultipartUpload as s3:PutObject).

Nothing else: no s3:CreateBucket, so rclone needs `no_check_bucket = true`
(RCLONE_CONFIG_<REMOTE>_NO_CHECK_BUCKET=true) to upload (else 403 AccessDenied on `PUT /NAME`).
Keep files below rclone's --s3-upload-cutoff (200 MiB by default): rclone 1.60's multipart
upload stores the object but then fails (400 BadRequest), as moto answers the completion with
`x-amz-version-id: null` and refuses the HEAD ?versionId=null that rclone sends next on a
bucket without versioning.  Prints one JSON object on stdout:
    {"bucket": NAME, "devices": {ID: {"access_key_id": ..., "secret_access_key": ...}}}
Exits 1 with one line on stderr when the server cannot be reached or refuses the setup (then
enforcement may stay off).

How moto 5.2.5 enforces IAM in server mode
-------------------------------------------
moto checks the signature and the IAM policies of a request only once it has served
settings.INITIAL_NO_AUTH_ACTION_COUNT authorizable requests (moto/core/authorization.py,
ActionAuthenticatorMixin).  That count comes from the environment variable of that name when the
server starts (default: infinity, i.e. never enforced), and a POST of a number as the body to
/moto-api/reset-auth (Content-Type text/plain: a form-encoded body reads as empty, and moto
answers 500) sets it again at run time and zeroes the request counter (what the
`set_initial_no_auth_action_count` decorator does in server mode).  This script POSTs "inf"
there before its setup and "0" after it, so the caller needs no INITIAL_NO_AUTH_ACTION_COUNT
and enforcement is on from the moment the script exits, whatever the server was started with.
/moto-api/ itself is never authorized.  Then an unknown access key gets 403 InvalidAccessKeyId,
a wrong secret 403 SignatureDoesNotMatch, a policy refusal 403 AccessDenied.  moto matches a
policy's Resource by turning each `*` into a regular-expression `.*` (no other escaping), hence
device ids are limited to letters, digits, `_` and `-`.  Running the script again (more devices,
or new keys) works: it turns enforcement off for its own setup, then on again.
"""

import argparse
import json
import re
import sys
import urllib.request

try:
    import boto3
    from botocore.config import Config
    from botocore.exceptions import BotoCoreError, ClientError
except ImportError:
    sys.exit("moto_s3.py: needs boto3; run it with /opt/marginalia-venv/bin/python")

REGION = "us-east-1"
DEVICE_ID = re.compile(r"^[A-Za-z0-9_-]{1,57}$")


def set_auth_threshold(endpoint, value):
    """POST to moto's /moto-api/reset-auth: authorize every request after `value` more ("inf": never)."""
    # Not form-encoded: moto reads the raw body, which Flask empties for a form.
    request = urllib.request.Request(f"{endpoint}/moto-api/reset-auth", data=value.encode(), method="POST",
                                     headers={"Content-Type": "text/plain"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.load(response)


def device_policy(bucket, device):
    """The inline policy of one device's user."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "ListEveryDevice", "Effect": "Allow", "Action": ["s3:ListBucket"],
             "Resource": [f"arn:aws:s3:::{bucket}"]},
            {"Sid": "ReadEveryObject", "Effect": "Allow", "Action": ["s3:GetObject"],
             "Resource": [f"arn:aws:s3:::{bucket}/*"]},
            {"Sid": "WriteOwnDirectory", "Effect": "Allow",
             "Action": ["s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
             "Resource": [f"arn:aws:s3:::{bucket}/devices/{device}/*"]},
        ],
    }


def client(service, endpoint):
    """A boto3 client for the moto server; the setup credentials are never checked."""
    return boto3.client(
        service, endpoint_url=endpoint, region_name=REGION,
        aws_access_key_id="setup", aws_secret_access_key="setup",
        config=Config(s3={"addressing_style": "path"}, retries={"max_attempts": 2}))


def create_device_user(iam, bucket, device):
    """Create (or reuse) the user of one device; give it the policy and one fresh key."""
    user = f"device-{device}"
    try:
        iam.create_user(UserName=user)
    except iam.exceptions.EntityAlreadyExistsException:
        for key in iam.list_access_keys(UserName=user)["AccessKeyMetadata"]:
            iam.delete_access_key(UserName=user, AccessKeyId=key["AccessKeyId"])
    iam.put_user_policy(UserName=user, PolicyName="marginalia-device",
                        PolicyDocument=json.dumps(device_policy(bucket, device)))
    key = iam.create_access_key(UserName=user)["AccessKey"]
    return {"access_key_id": key["AccessKeyId"], "secret_access_key": key["SecretAccessKey"]}


def main():
    parser = argparse.ArgumentParser(description="Configure a running moto server (see the module doc).")
    parser.add_argument("--endpoint", required=True, help="the moto server, e.g. http://127.0.0.1:PORT")
    parser.add_argument("--bucket", required=True, help="the bucket to create")
    parser.add_argument("--device", action="append", required=True, help="a device id (repeatable)")
    args = parser.parse_args()
    endpoint = args.endpoint.rstrip("/")
    for device in args.device:
        if not DEVICE_ID.match(device):
            parser.error(f"device id {device!r}: only letters, digits, '_' and '-', at most 57")

    try:
        set_auth_threshold(endpoint, "inf")
        s3 = client("s3", endpoint)
        try:
            s3.create_bucket(Bucket=args.bucket)
        except s3.exceptions.BucketAlreadyOwnedByYou:
            pass
        iam = client("iam", endpoint)
        devices = {device: create_device_user(iam, args.bucket, device) for device in args.device}
        set_auth_threshold(endpoint, "0")
    except (OSError, ValueError, BotoCoreError, ClientError) as error:
        print(f"moto_s3.py: {error}", file=sys.stderr)
        return 1
    json.dump({"bucket": args.bucket, "devices": devices}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
