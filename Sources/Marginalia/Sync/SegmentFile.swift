#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One segment file read from a sync folder: either not whole yet (pending) or its records.
enum SegmentRead {
    /// The file does not read whole (in flight, truncated, gone): nothing of it is used.
    case pending(String)
    /// The file read whole: its records, and the first bad one if any (the others are still usable).
    case whole(SegmentContents)
}

/// The records of a segment that read whole.
struct SegmentContents {
    var header: SegmentHeader?
    var changes: [Change] = []
    var size: Int64
    var sha256: String
    /// The first bad record: its 1-based line and what is wrong.
    var problem: (line: Int, reason: String)?
}

enum SegmentFile {
    /// Reads the segment at `path` in full, then checks each line as an archive's is checked.
    static func read(_ path: String) throws -> SegmentRead {
        let bytes: [UInt8]
        do {
            bytes = try SyncFolder.readFile(path, limit: SyncFormat.maxSegmentBytes)
        } catch let error as IOError where error.code == ENOENT {
            return .pending("gone while being read (compacted or moved by its writer); retried next round")
        } catch let error as IOError {
            return .pending("cannot be read (\(error)); retried next round")
        }
        guard !bytes.isEmpty else { return .pending("empty: a copy in progress; retried next round") }
        let text: [UInt8]
        do {
            text = try GzipReader(source: ByteArraySource(bytes)).readAll()
        } catch {
            return .pending("does not read whole (\(error)): a copy in progress or cut short; retried next round")
        }
        var contents = SegmentContents(size: Int64(bytes.count), sha256: try SHA256Digest.hex(of: bytes))
        check(lines: text, into: &contents)
        return .whole(contents)
    }

    private static func check(lines text: [UInt8], into contents: inout SegmentContents) {
        func note(_ line: Int, _ reason: String) {
            if contents.problem == nil { contents.problem = (line, reason) }
        }
        var lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
        guard lines.last?.isEmpty == true else {
            note(lines.count, "the last line does not end with a line feed")
            return
        }
        lines.removeLast()
        var trailer: (line: Int, counts: ArchiveCounts)?
        for (index, line) in lines.enumerated() {
            let number = index + 1
            let object: JSONObject
            do {
                guard case .object(let parsed) = try JSONParser.parse(Array(line)) else {
                    note(number, "not a JSON object")
                    continue
                }
                object = parsed
            } catch {
                note(number, "not JSON: \(error)")
                continue
            }
            do {
                if number == 1 {
                    contents.header = try SegmentHeader(json: object)
                    continue
                }
                guard contents.header != nil else { return }
                if trailer != nil { throw FieldError(field: "type", reason: "a record after the trailer") }
                switch object["type"] {
                case .string("change")?: contents.changes.append(try ArchiveRecords.change(object))
                case .string("trailer")?: trailer = (number, try ArchiveRecords.trailer(object))
                default: throw FieldError(field: "type", reason: "must be \"change\" or \"trailer\" in a segment")
                }
            } catch {
                note(number, "\(error)")
                if number == 1 { return }
            }
        }
        guard let trailer else {
            note(lines.count, "no trailer: the segment ends early")
            return
        }
        if trailer.counts.changes != contents.changes.count || trailer.counts.annotations != 0
            || trailer.counts.positions != 0 {
            note(trailer.line, "the trailer counts \(trailer.counts.changes) changes; the segment holds "
                + "\(contents.changes.count) valid ones")
        }
    }

    /// The bytes of a segment: header, the changes, trailer, gzip-compressed.
    static func encode(header: SegmentHeader, changes: [Change]) throws -> [UInt8] {
        let sink = ByteArraySink()
        let gzip = try GzipWriter(sink: sink)
        try gzip.write(try JSONWriter.encode(header.json) + [0x0A])
        var writer = JSONWriter(capacity: 1 << 16)
        for change in changes {
            try writer.value(.object(ArchiveFormat.record(change)))
            try writer.newline()
            if writer.bytes.count >= 1 << 16 {
                try gzip.write(writer.bytes)
                writer.removeAll(keepingCapacity: true)
            }
        }
        try gzip.write(writer.bytes)
        try gzip.write(try JSONWriter.encode(ArchiveCounts(changes: changes.count).trailerJSON) + [0x0A])
        try gzip.finish()
        return sink.bytes
    }
}
