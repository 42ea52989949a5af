import Foundation
@testable import Marginalia

/// The interop fixtures under Tests/Fixtures: the peers' Kindle files and the Romanian clippings.
enum InteropFixtures {
    static let directory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures")

    /// The four peer Kindle files, by name.
    static let kindleFiles = ["kindle4_clippings.txt", "old_gen_kindle_clippings.txt", "paperwhite_clippings.txt",
                              "touch_clippings.txt"]

    static func kindle(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent("peers/kindle-clippings/\(name)")))
    }

    static var romanianClippings: [UInt8] {
        get throws { Array(try Data(contentsOf: directory.appendingPathComponent("interop/romanian-clippings.txt"))) }
    }

    /// A file as a device writes it: a byte-order mark before every clipping (and so at the start), CRLF endings.
    static func asDeviceWrites(_ bytes: [UInt8]) -> [UInt8] {
        let text = String(decoding: bytes, as: UTF8.self)
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        var result = ""
        var startOfClipping = true
        for line in lines {
            result += (startOfClipping ? "\u{FEFF}" : "") + line + "\r\n"
            startOfClipping = line == "=========="
        }
        return Array(result.utf8)
    }
}

/// The sample content's editions, built once for all the interop tests of a run (building one takes seconds).
final class SampleContent: @unchecked Sendable {
    static let shared = SampleContent()
    private let lock = NSLock()
    private var built: [Int: String] = [:]
    private let directory: TemporaryDirectory?

    private init() {
        directory = try? TemporaryDirectory()
    }

    /// The path of edition `edition` (1 or 2) of the sample content, built on first use.
    func path(edition: Int) throws -> String {
        try lock.withLock {
            if let path = built[edition] { return path }
            guard let directory else { throw CocoaError(.fileWriteUnknown) }
            let path = try Samples.buildContent("eminescu-2026.\(edition).json", in: directory)
            built[edition] = path
            return path
        }
    }
}
