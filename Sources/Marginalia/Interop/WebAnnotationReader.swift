/// Reads W3C Web Annotation JSON-LD: one Annotation, an array of them, an AnnotationPage, or an AnnotationCollection
/// with its pages (embedded ones; pages only named by an IRI cannot be fetched and are refused).
///
/// An annotation written by `WebAnnotationWriter` carries its anchor exactly (its target's source
/// `urn:marginalia:EDITION:DOCUMENT` and `RangeSelector` of `passage=ID&offset=N` fragments): it comes back as it was,
/// with its id, kind, anchor, quote, note, tags and color. Any other is a foreign item anchored by its
/// `TextQuoteSelector`'s `exact` text, its `prefix` and `suffix` telling apart the places of a text the content holds
/// more than once, and its target's source standing for the book.
package enum WebAnnotationReader {
    /// The annotations of the file, in file order.
    /// - Throws: `MarginaliaError` (`.invalidData`) naming the annotation that cannot be read.
    package static func read(_ bytes: [UInt8], file: String) throws -> [ImportItem] {
        do {
            let root = try SourceText.json(bytes, file: file)
            var items: [ImportItem] = []
            for (index, object) in try annotations(in: root, file: file).enumerated() {
                do {
                    items.append(try item(object, index: index + 1))
                } catch let error as FieldError {
                    throw InteropError(file: file, reason: "annotation \(index + 1): \(error)")
                }
            }
            return items
        } catch {
            throw MarginaliaError(error)
        }
    }

    private static func types(_ object: JSONObject) -> [String] {
        switch object["type"] {
        case .string(let type)?: return [type]
        case .array(let values)?: return values.compactMap(\.stringValue)
        default: return []
        }
    }

    private static func annotations(in value: JSONValue, file: String) throws -> [JSONObject] {
        switch value {
        case .array(let values):
            return try values.flatMap { try annotations(in: $0, file: file) }
        case .object(let object):
            let kinds = types(object)
            if kinds.contains("Annotation") { return [object] }
            if kinds.contains("AnnotationCollection") {
                guard let first = object["first"] else { return [] }
                return try pages(from: first, file: file)
            }
            if kinds.contains("AnnotationPage") { return try pages(from: value, file: file) }
            throw InteropError(file: file,
                               reason: "an object of type \(kinds.first ?? "none") is not an Annotation, "
                                   + "AnnotationPage or AnnotationCollection")
        default:
            throw InteropError(file: file, reason: "expected an Annotation, or a list of them")
        }
    }

    /// The annotations of a page and of the pages that follow it (`next`), embedded.
    private static func pages(from first: JSONValue, file: String) throws -> [JSONObject] {
        var result: [JSONObject] = []
        var page: JSONValue? = first
        var seen = 0
        while let current = page {
            guard case .object(let object) = current else {
                throw InteropError(file: file,
                                   reason: "a page named only by its IRI (\(current.stringValue ?? "")) cannot be read; "
                                       + "embed the pages")
            }
            seen += 1
            guard seen <= 100_000 else { break }
            for item in object["items"]?.arrayValue ?? [] {
                guard case .object(let annotation) = item else { continue }
                result.append(annotation)
            }
            page = object["next"].flatMap { $0.objectValue == nil ? nil : $0 }
        }
        return result
    }

    private static func item(_ object: JSONObject, index: Int) throws -> ImportItem {
        var note: String?
        var tags: [String] = []
        let bodies: [JSONValue]
        switch object["body"] {
        case .array(let values)?: bodies = values
        case let value?: bodies = [value]
        case nil: bodies = []
        }
        for body in bodies {
            guard case .object(let resource) = body, let value = resource["value"]?.stringValue else { continue }
            if resource["purpose"]?.stringValue == "tagging" {
                tags.append(value)
            } else if note == nil {
                note = value
            }
        }
        if note == nil { note = object["bodyValue"]?.stringValue }
        let target: JSONObject?
        switch object["target"] {
        case .object(let value)?: target = value
        case .array(let values)?: target = values.lazy.compactMap(\.objectValue).first
        default: target = nil
        }
        let source = target?["source"]?.stringValue ?? object["target"]?.stringValue ?? ""
        var selectors: [JSONObject] = []
        switch target?["selector"] {
        case .object(let value)?: selectors = [value]
        case .array(let values)?: selectors = values.compactMap(\.objectValue)
        default: break
        }
        let quote = selectors.first { types($0).contains("TextQuoteSelector") }
        let motivation: String?
        switch object["motivation"] {
        case .string(let value)?: motivation = value
        case .array(let values)?: motivation = values.first?.stringValue
        default: motivation = nil
        }
        let exact = quote?["exact"]?.stringValue ?? ""
        let kind: AnnotationKind
        switch motivation {
        case "bookmarking": kind = .bookmark
        case "commenting" where exact.isEmpty: kind = .note
        case "commenting": kind = source.hasPrefix("urn:marginalia:") ? .note : .highlight
        default: kind = .highlight
        }
        let created = object["created"]?.stringValue.flatMap(ClippingDate.iso8601)
        let modified = object["modified"]?.stringValue.flatMap(ClippingDate.iso8601) ?? created
        var item = ImportItem(format: .w3c, kind: kind, title: source.isEmpty ? "W3C annotations" : source,
                              text: exact, note: note, date: created,
                              color: target?["styleClass"]?.stringValue, tags: tags, line: index)
        if let anchor = nativeAnchor(source: source, selectors: selectors, quote: quote) {
            let id = try annotationID(object["id"]?.stringValue, index: index)
            item.native = NativeAnnotation(id: id, anchor: anchor, created: created ?? 0, modified: modified ?? 0)
        } else {
            item.prefix = quote?["prefix"]?.stringValue
            item.suffix = quote?["suffix"]?.stringValue
            item.sourceID = object["id"]?.stringValue
        }
        return item
    }

    /// The anchor of an annotation `WebAnnotationWriter` wrote, or nil for any other.
    private static func nativeAnchor(source: String, selectors: [JSONObject], quote: JSONObject?) -> Anchor? {
        let prefix = "urn:marginalia:"
        guard source.hasPrefix(prefix) else { return nil }
        let parts = source.dropFirst(prefix.count).split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let edition = WebAnnotationWriter.percentDecoded(String(parts[0])),
              let document = WebAnnotationWriter.percentDecoded(String(parts[1])),
              let range = selectors.first(where: { types($0).contains("RangeSelector") }),
              let start = range["startSelector"]?.objectValue.flatMap(position),
              let end = range["endSelector"]?.objectValue.flatMap(position) else { return nil }
        return Anchor(document: document, start: start, end: end, quote: quote?["exact"]?.stringValue ?? "",
                      prefix: quote?["prefix"]?.stringValue ?? "", suffix: quote?["suffix"]?.stringValue ?? "",
                      edition: edition)
    }

    /// `passage=ID&offset=N` of a FragmentSelector.
    private static func position(_ selector: JSONObject) -> TextPosition? {
        guard types(selector).contains("FragmentSelector"), let value = selector["value"]?.stringValue else {
            return nil
        }
        var passage: String?
        var offset: Int?
        for pair in value.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { return nil }
            if parts[0] == "passage" { passage = WebAnnotationWriter.percentDecoded(parts[1]) }
            if parts[0] == "offset" { offset = Int(parts[1]) }
        }
        guard let passage, let offset, offset >= 0 else { return nil }
        return TextPosition(passage: passage, offset: offset)
    }

    /// The annotation id its IRI names: `urn:uuid:ID`, `urn:marginalia:annotation:ID`; one derived from any other.
    private static func annotationID(_ iri: String?, index: Int) throws -> String {
        guard let iri else { throw FieldError(field: "id", reason: "an annotation of Marginalia's has an id") }
        if iri.hasPrefix("urn:uuid:") { return String(iri.dropFirst("urn:uuid:".count)).lowercased() }
        if iri.hasPrefix("urn:marginalia:annotation:"),
           let id = WebAnnotationWriter.percentDecoded(String(iri.dropFirst("urn:marginalia:annotation:".count))) {
            return id
        }
        return try DerivedIdentifiers.uuid(["w3c", iri])
    }
}
