extension AnnotationRegisters {
    /// The register's name in `clocks`.
    static func clockName(_ register: Register) -> String {
        switch register {
        case .kind: return "kind"
        case .anchor: return "anchor"
        case .note: return "note"
        case .color: return "color"
        case .deleted: return "deleted"
        case .tag(let name): return "tag:" + name
        }
    }

    /// The register's value.
    func value(of register: Register) -> FieldValue {
        switch register {
        case .kind: return kind.map(FieldValue.kind) ?? .none
        case .anchor: return anchor.map(FieldValue.anchor) ?? .none
        case .note: return note.map(FieldValue.text) ?? .none
        case .color: return color.map(FieldValue.text) ?? .none
        case .deleted: return clocks["deleted"] == nil && kind == nil ? .none : .flag(deleted)
        case .tag(let name): return tags[name].map(FieldValue.flag) ?? .none
        }
    }
}

extension ChangeFields {
    /// The registers these fields set, in the order kind, anchor, note, color, tags (by name), deleted.
    var registers: [Register] {
        var registers: [Register] = []
        if kind != nil { registers.append(.kind) }
        if anchor != nil { registers.append(.anchor) }
        if note != nil { registers.append(.note) }
        if color != nil { registers.append(.color) }
        registers += tags.keys.sorted().map(Register.tag)
        if deleted != nil { registers.append(.deleted) }
        return registers
    }

    /// The value these fields set in `register` (an empty note or color clears it).
    func value(of register: Register) -> FieldValue {
        switch register {
        case .kind: return kind.map(FieldValue.kind) ?? .none
        case .anchor: return anchor.map(FieldValue.anchor) ?? .none
        case .note: return note.flatMap { $0.isEmpty ? nil : FieldValue.text($0) } ?? .none
        case .color: return color.flatMap { $0.isEmpty ? nil : FieldValue.text($0) } ?? .none
        case .deleted: return deleted.map(FieldValue.flag) ?? .none
        case .tag(let name): return tags[name].map(FieldValue.flag) ?? .none
        }
    }
}
