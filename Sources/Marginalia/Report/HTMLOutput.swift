/// HTML written to a sink through a buffer, so that a report of any size streams to its file in blocks and
/// memory stays flat.
final class HTMLOutput {
    private let sink: any ByteSink
    private var buffer: [UInt8] = []
    /// Bytes written so far.
    private(set) var count = 0
    private static let blockSize = 1 << 16

    init(sink: any ByteSink) {
        self.sink = sink
        buffer.reserveCapacity(Self.blockSize + 4096)
    }

    /// Appends markup as it is: only the renderer's own text, never the store's.
    func raw(_ markup: String) throws {
        buffer.append(contentsOf: markup.utf8)
        try flushIfFull()
    }

    /// Appends text from the store, escaped (`HTMLText`).
    func text(_ text: String) throws {
        HTMLText.append(text, to: &buffer)
        try flushIfFull()
    }

    /// Appends an element with escaped text: `<tag attributes>text</tag>`.
    func element(_ tag: String, _ attributes: String = "", _ text: String) throws {
        try raw("<\(tag)\(attributes.isEmpty ? "" : " " + attributes)>")
        try self.text(text)
        try raw("</\(tag)>")
    }

    /// Opens a section with its heading: `<section id="ID" aria-labelledby="ID-title">` and `<h2 id="ID-title">`
    /// holding `title` (the renderer's own text).
    func openSection(_ id: String, title: String) throws {
        try raw("<section id=\"\(id)\" aria-labelledby=\"\(id)-title\">\n<h2 id=\"\(id)-title\">\(title)</h2>\n")
    }

    /// The head of a table, a column header cell for each of `columns` (the renderer's own text).
    static func tableHead(_ columns: [String]) -> String {
        "<thead><tr>" + columns.map { "<th scope=\"col\">\($0)</th>" }.joined() + "</tr></thead>\n"
    }

    /// Appends every byte `source` holds, as it is: a part of the page written earlier by this renderer.
    func copy(from source: any ByteSource) throws {
        try flush()
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let read = try block.withUnsafeMutableBytes { try source.read(into: $0) }
            if read == 0 { return }
            try block.withUnsafeBytes { try sink.write(UnsafeRawBufferPointer(rebasing: $0[..<read])) }
            count += read
        }
    }

    /// Writes out what is buffered.
    func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try sink.write($0) }
        count += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }

    private func flushIfFull() throws {
        if buffer.count >= Self.blockSize { try flush() }
    }
}

@available(*, unavailable)
extension HTMLOutput: Sendable {}
