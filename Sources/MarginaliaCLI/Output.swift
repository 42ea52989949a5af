import Foundation
import Marginalia

/// How annotations, changes and positions are shown: as JSON objects, or as lines of text.
enum Output {
    // MARK: - JSON

    /// An annotation with its status against the attached content (and, when moved, where it is now).
    static func json(_ check: AnchorCheck) -> JSONValue {
        guard case .object(var object) = check.annotation.json else { return .null }
        object["status"] = .string(check.status.rawValue)
        if let anchor = check.newAnchor {
            object["movedTo"] = .object(JSONObject([
                ("start", anchor.start.json), ("end", anchor.end.json), ("quote", .string(anchor.quote)),
                ("edition", .string(anchor.edition)), ("match", .string(check.match ?? "")),
            ]))
        }
        if let reason = check.reason { object["reason"] = .string(reason) }
        return .object(object)
    }

    static func json(_ change: Change) -> JSONValue {
        .object(JSONObject([
            ("changeId", .string(change.changeID)),
            ("hlc", .string(change.hlc.description)),
            // When the change was made, by the clock of the machine that made it; `hlc` orders it.
            ("time", .string(Timestamp.iso8601(milliseconds: change.madeAt))),
            ("device", .string(change.device)),
            ("entity", .string(change.entity.rawValue)),
            ("entityId", .string(change.entityID)),
            ("op", .string(change.operation.rawValue)),
            ("fields", change.fields.json),
        ]))
    }

    /// Prints a JSON value on one line.
    static func print(_ value: JSONValue, to console: Console) throws {
        console.out(jsonText(try JSONWriter.encodeString(value)))
    }

    /// JSON text with each bidirectional override or isolate written as a JSON escape (`\u202e`): the same value
    /// to a JSON reader, and nothing that reorders a terminal's line (`Console.shown` would otherwise write it
    /// out in a form JSON does not read). They can stand only inside strings.
    static func jsonText(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: Console.isBidiControl) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if Console.isBidiControl(scalar) {
                out.append(contentsOf: "\\u\(String(scalar.value, radix: 16))".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    // MARK: - Text

    /// `text` as one word of a shell command, as the demo and the hints print commands: as it is when it holds only
    /// letters, digits and `-_./:=`, else in single quotes (a quote inside written '\'').
    static func shellQuoted(_ text: String) -> String {
        let plain = text.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) || "-_./:=".unicodeScalars.contains($0)
        }
        return plain && !text.isEmpty ? text : "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// `1 passage`, `2 passages`, `0 passages`: a count with its noun in the right number.
    static func count(_ count: Int, _ noun: String, plural: String? = nil) -> String {
        "\(count) " + (count == 1 ? noun : plural ?? noun + "s")
    }

    /// `3 changes, 1 annotation and 0 reading positions`.
    static func counts(changes: Int, annotations: Int, positions: Int) -> String {
        "\(count(changes, "change")), \(count(annotations, "annotation")) and "
            + count(positions, "reading position")
    }

    /// `luceafarul.1:0-12` or `luceafarul.1:4 → luceafarul.3:9`.
    static func range(_ anchor: Anchor) -> String {
        if anchor.start.passage == anchor.end.passage {
            return "\(anchor.start.passage):\(anchor.start.offset)-\(anchor.end.offset)"
        }
        return "\(anchor.start) → \(anchor.end)"
    }

    /// A quote shortened to `limit` characters, on one line.
    static func excerpt(_ text: String, limit: Int = 60) -> String {
        let flat = text.replacingOccurrences(of: "\n", with: " / ")
        return flat.count <= limit ? flat : String(flat.prefix(limit - 1)) + "…"
    }

    /// One annotation in two or three lines, for `list`.
    static func summary(_ annotation: Annotation, ids: ShortIDs) -> [String] {
        var head = "\(ids(annotation.id, .annotation))  \(annotation.kind.rawValue.padding(9))"
        if annotation.kind == .bookmark {
            head += " \(annotation.anchor.start.passage)"
        } else {
            head += " \(range(annotation.anchor))  “\(excerpt(annotation.anchor.quote))”"
        }
        var lines = [head]
        var details: [String] = []
        if let color = annotation.color { details.append("color: \(color)") }
        if !annotation.tags.isEmpty { details.append("tags: " + annotation.tags.joined(separator: ", ")) }
        if annotation.deleted { details.append("DELETED") }
        if !details.isEmpty { lines.append("          " + details.joined(separator: "  ")) }
        if let note = annotation.note {
            lines.append("          " + (annotation.kind == .bookmark ? "title: " : "note: ")
                + excerpt(note, limit: 90))
        }
        return lines
    }

    /// Every field of one annotation, for `show`; `changes` are its changes (oldest first), which say when it was
    /// made and last changed (by the clocks of the machines that made them), else its clocks do.
    static func details(_ annotation: Annotation, changes: [Change] = []) -> [String] {
        let anchor = annotation.anchor
        var lines = [
            "id:          \(annotation.id)",
            "kind:        \(annotation.kind.rawValue)\(annotation.deleted ? " (deleted)" : "")",
            "document:    \(anchor.document)",
            "range:       \(range(anchor))",
            "quote:       “\(anchor.quote)”",
            "context:     …\(anchor.prefix)[…]\(anchor.suffix)…",
        ]
        if let note = annotation.note {
            lines.append((annotation.kind == .bookmark ? "title:       " : "note:        ") + note)
        }
        if let color = annotation.color { lines.append("color:       \(color)") }
        if !annotation.tags.isEmpty { lines.append("tags:        " + annotation.tags.joined(separator: ", ")) }
        let created = changes.first { $0.operation == .create }?.madeAt ?? annotation.createdAt.milliseconds
        let updated = changes.map(\.madeAt).max() ?? annotation.updatedAt.milliseconds
        lines.append("created:     \(Timestamp.iso8601(milliseconds: created)) on edition \(annotation.createdEdition)")
        lines.append("updated:     \(Timestamp.iso8601(milliseconds: updated))")
        if anchor.edition != annotation.createdEdition { lines.append("anchored on: edition \(anchor.edition)") }
        return lines
    }

    /// An annotation that is not intact, for `anchors`: its old quote, and where it moved or why it is orphaned.
    static func checkLines(_ check: AnchorCheck, ids: ShortIDs) -> [String] {
        let annotation = check.annotation
        var lines = ["\(check.status.rawValue.uppercased().padding(9)) \(ids(annotation.id, .annotation))  "
            + "\(annotation.kind.rawValue) at \(range(annotation.anchor))\(annotation.deleted ? " (deleted)" : "")"]
        lines.append("          was: “\(excerpt(annotation.anchor.quote, limit: 80))”")
        if let anchor = check.newAnchor {
            lines.append(
                "          now: “\(excerpt(anchor.quote, limit: 80))” at \(range(anchor)) (\(check.match ?? ""))")
        }
        if let reason = check.reason { lines.append("          \(reason)") }
        if let note = annotation.note { lines.append("          note: \(excerpt(note, limit: 80))") }
        return lines
    }

    /// One change on one line, for `history` and `log`; `kind` is the annotation's, so that a bookmark's title is
    /// called a title.
    static func line(_ change: Change, showEntity: Bool, kind: AnnotationKind? = nil, ids: ShortIDs) -> String {
        var text = "\(Timestamp.iso8601(milliseconds: change.madeAt))  \(change.operation.rawValue.padding(9)) "
        if showEntity {
            let id = switch change.entity {
            case .annotation: ids(change.entityID, .annotation)
            case .device: ids(change.entityID, .device)
            default: change.entityID
            }
            text += "\(change.entity.rawValue) \(id)  "
        }
        let fields = describe(change.fields, kind: change.fields.kind ?? kind, ids: ids)
        if !fields.isEmpty { text += fields + "  " }
        text += "(\(ids.device(change.device)))"
        return text
    }

    /// The fields of a change in words.
    static func describe(_ fields: ChangeFields, kind: AnnotationKind? = nil, ids: ShortIDs) -> String {
        var parts: [String] = []
        if let target = fields.revertTo { parts.append("revert to \(ids(target, .change))") }
        if let kind = fields.kind { parts.append(kind.rawValue) }
        if let anchor = fields.anchor {
            parts.append("at \(range(anchor))"
                + (anchor.quote.isEmpty ? "" : " “\(excerpt(anchor.quote, limit: 40))”")
                + " (edition \(anchor.edition))")
        }
        if let note = fields.note {
            let label = kind == .bookmark ? "title" : "note"
            parts.append(note.isEmpty ? "\(label) cleared" : "\(label) “\(excerpt(note, limit: 40))”")
        }
        if let color = fields.color { parts.append(color.isEmpty ? "color cleared" : "color \(color)") }
        for (tag, present) in fields.tags.sorted(by: { $0.key < $1.key }) {
            parts.append(present ? "+#\(tag)" : "-#\(tag)")
        }
        if let deleted = fields.deleted, fields.revertTo != nil { parts.append(deleted ? "deleted" : "not deleted") }
        if let position = fields.position { parts.append("at \(position)") }
        if let name = fields.name { parts.append("name “\(name)”") }
        return parts.joined(separator: ", ")
    }
}

extension String {
    /// The string padded with spaces on the right to `width` characters.
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}

/// The short forms of the ids one output prints, read from the store before it prints
/// (`AnnotationStore.abbreviatedIDs`): each the shortest prefix of at least 8 characters that names that id
/// alone, which every command takes back.
struct ShortIDs {
    private var forms: [IDKind: [String: String]] = [:]
    /// The devices' names, by id (`AnnotationStore.deviceNames`), read when there are devices to show.
    private var names: [String: String] = [:]

    /// The short forms of the given annotation, change and device ids.
    init(_ store: AnnotationStore, annotations: [String] = [], changes: [String] = [], devices: [String] = [])
        throws
    {
        for (kind, ids) in [(IDKind.annotation, annotations), (.change, changes), (.device, devices)]
        where !ids.isEmpty {
            forms[kind] = try store.abbreviatedIDs(ids, kind: kind)
        }
        if !devices.isEmpty { names = try store.deviceNames() }
    }

    /// The short forms of every id `changes` name: their own, their devices', the annotations they change and
    /// the changes they revert to (and `kept`, the changes whose values stayed in a merge).
    init(_ store: AnnotationStore, changes: [Change], kept: [String] = []) throws {
        try self.init(store, annotations: changes.filter { $0.entity == .annotation }.map(\.entityID),
                      changes: changes.map(\.changeID) + changes.compactMap(\.fields.revertTo) + kept,
                      devices: changes.map(\.device) + changes.filter { $0.entity == .device }.map(\.entityID))
    }

    /// The short form of `id`, an id of `kind`; the whole id when it was not read (which is taken back too).
    func callAsFunction(_ id: String, _ kind: IDKind) -> String {
        forms[kind]?[id] ?? id
    }

    /// Who made a change, as a line shows it: `by laptop` for a named device, else `device 01a233a8`.
    func device(_ id: String) -> String {
        names[id].map { "by \($0)" } ?? "device \(self(id, .device))"
    }
}
