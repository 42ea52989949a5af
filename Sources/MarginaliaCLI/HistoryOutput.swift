import Marginalia

/// How history entries, field values and diffs are shown: as JSON, or as lines of text.
extension Output {
    // MARK: - JSON

    /// A field's value: null, a string, a bool, an array of tags, or an anchor object.
    static func json(_ value: FieldValue) -> JSONValue {
        switch value {
        case .none: return .null
        case .text(let text): return .string(text)
        case .flag(let flag): return .bool(flag)
        case .kind(let kind): return .string(kind.rawValue)
        case .tags(let tags): return .array(tags.map(JSONValue.string))
        case .anchor(let anchor):
            return .object(JSONObject([
                ("document", .string(anchor.document)), ("start", anchor.start.json), ("end", anchor.end.json),
                ("quote", .string(anchor.quote)), ("edition", .string(anchor.edition)),
            ]))
        }
    }

    /// A change as `log --json` shows it (`change`, else the change alone), with `set`: each field it set, its
    /// previous value, and whether it lost.
    static func json(_ entry: HistoryEntry, change: JSONValue? = nil) -> JSONValue {
        guard case .object(var object) = change ?? json(entry.change) else { return .null }
        object["set"] = .array(entry.fields.map { field in
            var members: [(String, JSONValue)] = []
            switch field.register {
            case .tag(let name): members += [("field", .string("tags")), ("tag", .string(name))]
            default: members.append(("field", .string(field.register.description)))
            }
            members += [("previous", json(field.previous)), ("value", json(field.value)), ("lost", .bool(field.lost))]
            if let kept = field.keptBy { members.append(("keptBy", .string(kept))) }
            return .object(JSONObject(members))
        })
        return .object(object)
    }

    /// One annotation's difference: its id, events, each field before and after, and both states.
    static func json(_ diff: AnnotationDiff) -> JSONValue {
        .object(JSONObject([
            ("id", .string(diff.id)),
            ("events", .array(diff.events.map { .string($0.rawValue) })),
            ("fields", .array(diff.fields.map { field in
                .object(JSONObject([
                    ("field", .string(field.field.rawValue)), ("before", json(field.before)),
                    ("after", json(field.after)),
                ]))
            })),
            ("before", diff.before?.json ?? .null),
            ("after", diff.after.json),
        ]))
    }

    // MARK: - Text

    /// A field's value in words: a note in «», `(none)`, yes/no, an anchor's range, quote and edition.
    static func words(_ value: FieldValue, of register: Register? = nil) -> String {
        switch value {
        case .none:
            if case .tag? = register { return "absent" }
            return "(none)"
        case .text(let text): return register == .note ? "«\(excerpt(text, limit: 60))»" : text
        case .flag(let flag):
            if case .tag? = register { return flag ? "present" : "removed" }
            return flag ? "yes" : "no"
        case .kind(let kind): return kind.rawValue
        case .tags(let tags): return tags.isEmpty ? "(none)" : tags.joined(separator: ", ")
        case .anchor(let anchor):
            return "\(range(anchor))" + (anchor.quote.isEmpty ? "" : " “\(excerpt(anchor.quote, limit: 40))”")
                + " (edition \(anchor.edition))"
        }
    }

    /// One history entry: a line for the change (its time, operation, short change id and device), then a line
    /// per field it set, `note: «prima» → «a doua»`, or for a field that lost the merge, the value that stayed.
    /// `kind` is the annotation's, so that a bookmark's title is called a title.
    static func lines(_ entry: HistoryEntry, kind: AnnotationKind? = nil, ids: ShortIDs) -> [String] {
        let change = entry.change
        var head = "\(Timestamp.iso8601(milliseconds: change.madeAt))  \(change.operation.rawValue.padding(9)) change "
            + ids(change.changeID, .change)
        if let target = change.fields.revertTo { head += "  revert to \(ids(target, .change))" }
        head += "  (\(ids.device(change.device)))"
        return [head] + entry.fields.map { field in
            let name = field.register == .note && kind == .bookmark ? "title" : field.register.description
            let value = words(field.value, of: field.register)
            if let kept = field.keptBy {
                return "          \(name): \(value) lost to \(words(field.previous, of: field.register)) "
                    + "(change \(ids(kept, .change)), newer)"
            }
            if change.operation == .create && field.previous == .none { return "          \(name): \(value)" }
            if field.previous == field.value { return "          \(name): \(value) (unchanged)" }
            return "          \(name): \(words(field.previous, of: field.register)) → \(value)"
        }
    }

    /// One annotation's difference: a line with its id, events, kind and range, then a line per field.
    static func lines(_ diff: AnnotationDiff, ids: ShortIDs) -> [String] {
        let annotation = diff.after
        var head = "\(ids(diff.id, .annotation))  \(diff.events.map(\.rawValue).joined(separator: ", ").padding(17)) "
            + "\(annotation.kind.rawValue) \(range(annotation.anchor))"
        if !annotation.anchor.quote.isEmpty { head += "  “\(excerpt(annotation.anchor.quote, limit: 40))”" }
        let register: (AnnotationField) -> Register? = { field in
            switch field {
            case .note: return .note
            default: return nil
            }
        }
        return [head] + diff.fields.map { field in
            let after = words(field.after, of: register(field.field))
            // A bookmark's note is its title.
            let name = field.field == .note && annotation.kind == .bookmark ? "title" : field.field.rawValue
            // A new annotation had no earlier values: only what it was made with.
            guard diff.before != nil else { return "          \(name): \(after)" }
            return "          \(name): \(words(field.before, of: register(field.field))) → \(after)"
        }
    }
}
