/// What went wrong with a remote, in words a person can act on; rclone's own output is kept out (it can name
/// credentials), but for the lines that say what failed, with anything like a secret taken out.
struct RemoteError: Error, CustomStringConvertible {
    enum Kind: Equatable {
        /// The remote cannot be reached (offline, refused connection, timeout).
        case offline
        /// The remote refused this device's credentials or this path.
        case denied
        /// The remote is full or over its quota.
        case quota
        /// No such remote, bucket or path.
        case notFound
        /// The remote is not configured in rclone.
        case unknownRemote
        /// rclone is not installed.
        case missingTool
        /// A file of this device on the remote differs from the mirror's, and segments are never replaced.
        case differs
        /// Anything else rclone reported.
        case failed

        /// The tool's exit status (sysexits.h).
        var exitStatus: Int32 {
            switch self {
            case .offline: 69  // EX_UNAVAILABLE
            case .denied: 77  // EX_NOPERM
            case .quota: 73  // EX_CANTCREAT
            case .notFound: 66  // EX_NOINPUT
            case .unknownRemote: 78  // EX_CONFIG
            case .missingTool: 69
            case .differs: 65  // EX_DATAERR
            case .failed: 75  // EX_TEMPFAIL
            }
        }
    }

    let kind: Kind
    let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }

    /// The error rclone's exit `status` and standard error stand for, during `step`: told by whole phrases, never
    /// by a bare number (a port or a request id may hold "507" or "403").
    init(status: Int32, stderr: String, step: String, remote: String) {
        let text = stderr.lowercased()
        func has(_ words: String...) -> Bool { words.contains { text.contains($0) } }
        let kind: Kind
        if has("didn't find section in config", "not found in config file", "config file not found") {
            kind = .unknownRemote
        } else if has("immutable file modified") {
            kind = .differs
        } else if has("accessdenied", "access denied", "403 forbidden", "forbidden", "signaturedoesnotmatch",
                      "invalidaccesskeyid", "401 unauthorized", "unauthorized", "authentication") {
            kind = .denied
        } else if has("quotaexceeded", "quota exceeded", "over quota", "insufficient storage", "no space left",
                      "entitytoolarge") {
            kind = .quota
        } else if status == 3 || status == 4
                    || has("nosuchbucket", "directory not found", "object not found", "doesn't exist") {
            kind = .notFound
        } else if has("connection refused", "no such host", "network is unreachable", "i/o timeout",
                      "timeout", "connection reset", "unexpected eof", "tls handshake", "dial tcp") {
            kind = .offline
        } else {
            kind = .failed
        }
        let said = Self.filtered(stderr)
        let what: String
        switch kind {
        case .offline: what = "\(remote) cannot be reached (offline, or the server is down)"
        case .denied: what = "\(remote) refused this device's credentials or this path"
        case .quota: what = "\(remote) is full or over its quota"
        case .notFound: what = "\(remote) has no such bucket, folder or file"
        case .unknownRemote: what = "no rclone remote \(remote.prefix { $0 != ":" }) is configured "
            + "('rclone config', or RCLONE_CONFIG_<NAME>_… variables)"
        case .missingTool: what = "rclone could not run"
        case .differs: what = "a file of this device on \(remote) differs from the one in the mirror, and "
            + "segments are never replaced there"
        case .failed: what = "rclone failed (exit \(status))"
        }
        self.init(kind, "could not \(step): \(what)" + (said.isEmpty ? "" : " — rclone said: \(said)"))
    }

    /// The last lines of rclone's standard error that say what failed, each cut to 200 characters, with every line
    /// that could carry a credential left out.
    static func filtered(_ stderr: String) -> String {
        let secretish = ["secret", "password", "pass=", "token", "key_id", "access_key", "authorization",
                         "credential", "bearer", "signature="]
        let lines = stderr.split(separator: "\n").map(String.init).filter { line in
            let lower = line.lowercased()
            return !line.isEmpty && !secretish.contains { lower.contains($0) }
        }
        return lines.suffix(2).map { line in
            let kept = line.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }
            return String(String.UnicodeScalarView(kept).prefix(200))
        }.joined(separator: " / ")
    }
}
