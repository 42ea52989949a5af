/// Markers around matched words in snippets.
public struct SnippetMarkers: Hashable, Sendable {
    /// Put before each matched word.
    public var open: String
    /// Put after each matched word.
    public var close: String

    /// Markers `open` and `close` around matched words.
    public init(open: String, close: String) {
        self.open = open
        self.close = close
    }

    /// Square brackets around matched words, as the CLI prints them.
    public static let brackets = SnippetMarkers(open: "[", close: "]")
}
