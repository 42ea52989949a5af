/// A point in the content: a stable passage id and an offset into its text, in Unicode code points
/// (as the W3C Web Annotation TextPositionSelector counts).
public struct TextPosition: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The passage's id, e.g. `luceafarul.3`.
    public var passage: String
    /// The offset in the passage, in code points of its NFC text.
    public var offset: Int

    /// The position `offset` code points into `passage`.
    public init(passage: String, offset: Int) {
        self.passage = passage
        self.offset = offset
    }

    /// `passage:offset`, as the CLI prints and reads it.
    public var description: String { "\(passage):\(offset)" }
}
