import Marginalia

/// Reads `PASSAGE[:START-END]`, `PASSAGE[:OFFSET]` from the command line.
///
/// The offsets come after the last colon, so passage ids may themselves hold colons.
enum AnchorSyntax {
    /// `luceafarul.1`, `luceafarul.1:4-10` or `luceafarul.1:4`.
    static func parse(_ text: String) throws -> (passage: String, start: Int?, end: Int?) {
        guard let colon = text.lastIndex(of: ":") else { return (text, nil, nil) }
        let passage = String(text[..<colon])
        let suffix = text[text.index(after: colon)...]
        let parts = suffix.split(separator: "-", omittingEmptySubsequences: false)
        let numbers = parts.map { Int($0) }
        guard !passage.isEmpty, !parts.isEmpty, parts.count <= 2, numbers.allSatisfy({ ($0 ?? -1) >= 0 }) else {
            // Not offsets after all: the colon belongs to the id.
            if suffix.contains(where: \.isNumber) && suffix.allSatisfy({ $0.isNumber || $0 == "-" }) {
                throw UsageError("'\(text)': offsets are START-END, two whole numbers")
            }
            return (text, nil, nil)
        }
        let start = numbers[0]
        let end = numbers.count == 2 ? numbers[1] : nil
        if let start, let end, end < start {
            throw UsageError("'\(text)': the end offset \(end) is before the start \(start)")
        }
        return (passage, start, end)
    }

    /// The request for `PASSAGE[:START-END]` with the `--quote` and `--to` options of `arguments`.
    static func request(_ text: String, arguments: ParsedArguments) throws -> AnchorRequest {
        let (passage, start, end) = try parse(text)
        var request = AnchorRequest(passage: passage, start: start, end: end, quote: arguments.value("quote"))
        if let to = arguments.value("to") {
            let (endPassage, endStart, endEnd) = try parse(to)
            if endEnd != nil { throw UsageError("--to takes PASSAGE[:END], one offset") }
            request.endPassage = endPassage
            request.endOffset = endStart
        }
        return request
    }
}
