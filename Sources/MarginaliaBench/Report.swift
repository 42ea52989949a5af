import Foundation

/// A number with its unit: `45_000 annotations/s`, `0.41 ms`, `38.2 MiB`.
struct Quantity {
    var value: Double
    var unit: String

    var formatted: String {
        switch unit {
        case "ms": return String(format: value < 10 ? "%.3f ms" : "%.1f ms", value)
        case "MiB": return String(format: "%.1f MiB", value)
        case "": return value == 1 ? "yes" : "no"
        default: return "\(Report.grouped(value)) \(unit)"
        }
    }
}

/// What a measurement must reach.
enum Target {
    /// Ours ÷ reference, in time, at most this.
    case timeRatioAtMost(Double)
    /// Ours ÷ reference, in bytes, at most this.
    case sizeRatioAtMost(Double)
    /// Reference ÷ ours, in time (how many times as fast), at least this.
    case speedupAtLeast(Double)
    /// The figure itself below this, in its unit.
    case below(Double)
    /// A property that must hold (the figure is 1 for yes, 0 for no).
    case holds

    var description: String {
        switch self {
        case .timeRatioAtMost(let bound): return String(format: "≤ %.2g× the time", bound)
        case .sizeRatioAtMost(let bound): return String(format: "≤ %.2g× the bytes", bound)
        case .speedupAtLeast(let bound): return String(format: "≥ %.2g× as fast", bound)
        case .below(let bound): return "< \(Report.grouped(bound))"
        case .holds: return "yes"
        }
    }
}

/// One row of the results: a figure, its reference measured in the same run, their ratio and the target.
struct Measurement {
    var id: String
    var name: String
    var figure: Quantity
    /// Wall time of the measured run (the median when repeated).
    var seconds: Double?
    var referenceName: String?
    var reference: Quantity?
    var referenceSeconds: Double?
    /// Shown as a speedup (reference time ÷ ours) rather than a time ratio (ours ÷ reference).
    var asSpeedup = false
    var target: Target?
    /// Set when the target is not judged in this run, with the reason.
    var unjudged: String?
    /// For a size: ours and the reference's, in bytes; the ratio is then ours ÷ reference in bytes.
    var bytes: Double?
    var referenceBytes: Double?

    /// Ours ÷ reference in bytes for a size; else in time (or reference ÷ ours for a speedup).
    var ratio: Double? {
        if let bytes, let referenceBytes {
            return referenceBytes > 0 ? bytes / referenceBytes : nil
        }
        guard let seconds, let referenceSeconds, seconds > 0, referenceSeconds > 0 else { return nil }
        return asSpeedup ? referenceSeconds / seconds : seconds / referenceSeconds
    }

    var ratioText: String {
        guard let ratio else { return "—" }
        if bytes != nil { return String(format: "%.2f× the bytes", ratio) }
        return String(format: asSpeedup ? "%.2f× as fast" : "%.2f× the time", ratio)
    }

    var targetText: String {
        guard let target else { return "—" }
        if case .below = target { return "< \(Quantity(value: boundValue ?? 0, unit: figure.unit).formatted)" }
        return target.description
    }

    private var boundValue: Double? {
        if case .below(let bound)? = target { return bound }
        return nil
    }

    /// PASS, MISS, or nil when there is no target (or it is not judged in this run).
    var passed: Bool? {
        guard let target, unjudged == nil else { return nil }
        switch target {
        case .timeRatioAtMost(let bound), .sizeRatioAtMost(let bound): return ratio.map { $0 <= bound }
        case .speedupAtLeast(let bound): return ratio.map { $0 >= bound }
        case .below(let bound): return figure.value < bound
        case .holds: return figure.value == 1
        }
    }

    var status: String {
        if let unjudged { return target == nil ? "—" : "(\(unjudged))" }
        switch passed {
        case true?: return "PASS"
        case false?: return "MISS"
        case nil: return "—"
        }
    }
}

/// Every figure of a run: the table rows, and named extra figures (sizes, counts) for the JSON file.
final class Report {
    var measurements: [Measurement] = []
    var extras: [(String, Any)] = []
    var notes: [String] = []
    let started = Date()

    func add(_ measurement: Measurement) {
        measurements.append(measurement)
        let line = "  \(measurement.name): \(measurement.figure.formatted)"
            + (measurement.reference.map { " vs \($0.formatted)" } ?? "") + "  \(measurement.status)"
        Log.say(line)
    }

    func extra(_ key: String, _ value: Any) {
        extras.append((key, value))
    }

    func note(_ text: String) {
        notes.append(text)
        Log.say("  note: \(text)")
    }

    // MARK: - Table

    func table() -> String {
        let header = ["measurement", "figure", "reference", "reference figure", "ratio", "target", "status"]
        let rows = measurements.map { m in
            [m.name, m.figure.formatted, m.referenceName ?? "—", m.reference?.formatted ?? "—", m.ratioText,
             m.targetText, m.status]
        }
        var widths = header.map(\.count)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                cell + String(repeating: " ", count: widths[index] - cell.count)
            }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        var text = line(header) + "\n" + line(widths.map { String(repeating: "-", count: $0) }) + "\n"
        for row in rows { text += line(row) + "\n" }
        let judged = measurements.compactMap(\.passed)
        text += "\n\(judged.filter { $0 }.count) of \(judged.count) targets met"
        let missed = measurements.filter { $0.passed == false }.map(\.name)
        if !missed.isEmpty { text += "; missed: " + missed.joined(separator: ", ") }
        return text + "\n"
    }

    // MARK: - JSON

    func json(options: BenchOptions, machine: [String: Any], command: String) throws -> Data {
        var rows: [[String: Any]] = []
        for m in measurements {
            var row: [String: Any] = ["id": m.id, "name": m.name, "value": m.figure.value, "unit": m.figure.unit,
                                      "status": m.status]
            if let seconds = m.seconds { row["seconds"] = seconds }
            if let name = m.referenceName { row["referenceName"] = name }
            if let reference = m.reference {
                row["referenceValue"] = reference.value
                row["referenceUnit"] = reference.unit
            }
            if let seconds = m.referenceSeconds { row["referenceSeconds"] = seconds }
            if let bytes = m.bytes { row["bytes"] = bytes }
            if let bytes = m.referenceBytes { row["referenceBytes"] = bytes }
            if let ratio = m.ratio {
                row["ratio"] = ratio
                row["ratioKind"] = m.bytes != nil ? "size ratio (ours / reference, bytes)"
                    : m.asSpeedup ? "speedup (reference time / ours)" : "time ratio (ours / reference)"
            }
            if m.target != nil { row["target"] = m.targetText }
            if let passed = m.passed { row["passed"] = passed }
            if let reason = m.unjudged { row["notJudged"] = reason }
            rows.append(row)
        }
        var figures: [String: Any] = [:]
        for (key, value) in extras { figures[key] = value }
        let document: [String: Any] = [
            "date": ISO8601DateFormatter().string(from: started),
            "command": command,
            "machine": machine,
            "options": ["annotations": options.annotations, "quick": options.quick, "memory": options.memory,
                        "memoryAnnotations": options.memoryAnnotations, "syntheticPassages": options.syntheticPassages,
                        "seed": options.seed],
            "measurements": rows,
            "figures": figures,
            "notes": notes,
        ]
        return try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
    }

    /// 1234567.8 → "1,234,568"; small values keep two decimals.
    static func grouped(_ value: Double) -> String {
        if value.magnitude < 100 && value != value.rounded() { return String(format: "%.2f", value) }
        let digits = String(Int64(value.rounded()).magnitude)
        var result = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return (value < 0 ? "-" : "") + result
    }
}

/// Progress on stderr, so that stdout holds only the table.
enum Log {
    static func say(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
