/// Writes annotations as a W3C Web Annotation `AnnotationCollection` (https://www.w3.org/TR/annotation-model/),
/// one page holding one Annotation per annotation it is given (give it the live ones).
///
/// Each annotation: `@context` `http://www.w3.org/ns/anno.jsonld`, `id` `urn:uuid:…`, `motivation` (highlighting,
/// commenting for a note, bookmarking), `created` and `modified`, a `TextualBody` for the note (purpose commenting)
/// and one per tag (purpose tagging), and a target whose `source` names the content edition and the document
/// (`urn:marginalia:EDITION:DOCUMENT`, each part percent-encoded) with a `TextQuoteSelector` (`exact` = the quote,
/// `prefix`, `suffix`), a `TextPositionSelector` in code points of the document's text (its passages joined by a
/// line feed; only when the content is attached), and a `RangeSelector` of two `FragmentSelector`s
/// `passage=ID&offset=N` that give the anchor exactly; the color is the target's `styleClass`, with a stylesheet.
///
/// The W3C model counts positions in code points, as Marginalia does; EPUB CFI and some tools count UTF-16 units.
package enum WebAnnotationWriter {
    /// The JSON-LD context of the W3C Web Annotation model.
    package static let context = "http://www.w3.org/ns/anno.jsonld"

    /// The collection as JSON text (one line, and a line feed).
    package static func render(_ annotations: some Sequence<Annotation>, context: InteropExportContext) throws
        -> String
    {
        let items = context.readingOrder(annotations).map { annotation(for: $0, context: context) }
        let collection = try DerivedIdentifiers.uuid(["w3c-collection", String(context.exportedAt)]
                                                     + items.compactMap { $0["id"].flatMap(\.stringValue) })
        var members: [(String, JSONValue)] = [
            ("@context", .string(Self.context)), ("id", .string("urn:uuid:\(collection)")),
            ("type", .string("AnnotationCollection")),
            ("label", .string(context.contentTitle.map { "Annotations on \($0)" } ?? "Annotations")),
            ("total", .int(Int64(items.count))),
        ]
        if !items.isEmpty {
            let page = JSONValue.object(JSONObject([
                ("id", .string("urn:uuid:\(collection)#page-1")), ("type", .string("AnnotationPage")),
                ("partOf", .string("urn:uuid:\(collection)")), ("startIndex", .int(0)),
                ("items", .array(items.map(JSONValue.object))),
            ]))
            members.append(("first", page))
            members.append(("last", .string("urn:uuid:\(collection)#page-1")))
        }
        return try JSONWriter.encodeString(.object(JSONObject(members))) + "\n"
    }

    /// One annotation as a W3C Annotation.
    static func annotation(for annotation: Annotation, context: InteropExportContext) -> JSONObject {
        let anchor = annotation.anchor
        var body: [JSONValue] = []
        if let note = annotation.note, !note.isEmpty {
            body.append(.object(JSONObject([("type", .string("TextualBody")), ("value", .string(note)),
                                            ("format", .string("text/plain")), ("purpose", .string("commenting"))])))
        }
        for tag in annotation.tags {
            body.append(.object(JSONObject([("type", .string("TextualBody")), ("value", .string(tag)),
                                            ("purpose", .string("tagging"))])))
        }
        var selectors: [JSONValue] = []
        // A bookmark's quote is empty; its suffix is the text it marks.
        selectors.append(.object(JSONObject([
            ("type", .string("TextQuoteSelector")), ("exact", .string(anchor.quote)),
            ("prefix", .string(anchor.prefix)), ("suffix", .string(anchor.suffix)),
        ])))
        if let start = context.passageStarts[anchor.start.passage], let end = context.passageStarts[anchor.end.passage] {
            selectors.append(.object(JSONObject([
                ("type", .string("TextPositionSelector")), ("start", .int(Int64(start + anchor.start.offset))),
                ("end", .int(Int64(end + anchor.end.offset))),
            ])))
        }
        selectors.append(.object(JSONObject([
            ("type", .string("RangeSelector")), ("startSelector", fragment(anchor.start)),
            ("endSelector", fragment(anchor.end)),
        ])))
        var target: [(String, JSONValue)] = [
            ("source", .string("urn:marginalia:\(percentEncoded(anchor.edition)):\(percentEncoded(anchor.document))")),
            ("selector", .array(selectors)),
        ]
        if let color = annotation.color { target.append(("styleClass", .string(color))) }
        let motivation: String
        switch annotation.kind {
        case .highlight: motivation = "highlighting"
        case .note: motivation = "commenting"
        case .bookmark: motivation = "bookmarking"
        }
        var members: [(String, JSONValue)] = [
            ("@context", .string(Self.context)), ("id", .string(iri(of: annotation.id))),
            ("type", .string("Annotation")), ("motivation", .string(motivation)),
            ("created", .string(Timestamp.iso8601(milliseconds: context.created(annotation)))),
            ("modified", .string(Timestamp.iso8601(milliseconds: context.updated(annotation)))),
        ]
        if let color = annotation.color {
            // A styleClass needs the annotation's stylesheet (model 4.4): one rule naming the color.
            members.append(("stylesheet", .object(JSONObject([
                ("type", .string("CssStylesheet")),
                ("value", .string(".\(percentEncoded(color)) { background-color: \(color); }")),
            ]))))
        }
        if !body.isEmpty { members.append(("body", body.count == 1 ? body[0] : .array(body))) }
        members.append(("target", .object(JSONObject(target))))
        return JSONObject(members)
    }

    /// `urn:uuid:ID` for a UUID, else `urn:marginalia:annotation:ID`.
    static func iri(of id: String) -> String {
        let hex = id.utf8.filter { $0 != UInt8(ascii: "-") }
        let isUUID = id.utf8.count == 36 && hex.count == 32
            && hex.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
        return isUUID ? "urn:uuid:\(id)" : "urn:marginalia:annotation:\(percentEncoded(id))"
    }

    private static func fragment(_ position: TextPosition) -> JSONValue {
        .object(JSONObject([("type", .string("FragmentSelector")),
                            ("value", .string("passage=\(percentEncoded(position.passage))&offset=\(position.offset)"))]))
    }

    /// Every byte but RFC 3986's unreserved characters as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(digits[Int(byte >> 4)])
                out.unicodeScalars.append(digits[Int(byte & 0x0F)])
            }
        }
        return out
    }

    /// The text `percentEncoded` made, or nil when it is not valid percent-encoded UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
