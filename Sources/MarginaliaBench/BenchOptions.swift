import Foundation

/// The benchmark's command line: parse, validate, and say what is wrong when it is.
struct BenchOptions {
    /// Annotations in the measured store.
    var annotations = 100_000
    var quick = false
    /// Where to write every figure as JSON.
    var jsonPath: String?
    /// Where stores and archives go; kept (and used as a cache) when given, else a temporary directory.
    var workdir: String?
    /// Also measure peak memory at `memoryAnnotations` (a store built once and cached in the work directory).
    var memory = false
    var memoryAnnotations = 1_000_000
    /// Passages of the synthetic content.
    var syntheticPassages = 100_000
    var seed: UInt64 = 1
    var python = "python3"
    /// Changes a late joiner catches up from (four devices' worth); nil: 100000, or 4000 with `quick`.
    var lateJoinerChanges: Int?
    /// The groups of measurements to run; nil: all of them.
    var only: Set<Group>?

    /// The groups of measurements, as `--only` names them.
    enum Group: String, CaseIterable {
        case writes, archives, timeline, sync, interop, search, reconcile, memory, report
    }

    /// Whether `group` is measured in this run.
    func runs(_ group: Group) -> Bool { only?.contains(group) ?? true }

    /// Queries are run this many times each (after one warm-up round).
    var searchRounds: Int { quick ? 2 : 5 }
    /// Annotations written one per transaction.
    var singleTransactions: Int { quick ? 50 : 500 }
    /// At most this many runs of each repeated measurement (fewer when one run is long).
    var maxRepeats: Int { quick ? 1 : 3 }

    static let usage =
        "Usage: marginalia-bench [--quick] [--annotations N] [--json FILE] [--workdir DIR] [--memory] [--only GROUPS]"

    static let help = """
        OVERVIEW: Measures Marginalia's main operations against reference pipelines on a synthetic store.

        \(usage)

        Build it in release mode: swift run -c release marginalia-bench

        OPTIONS:
          --annotations N          Annotations in the store (default 100000; 10000 with --quick).
          --quick                  A short run (under a minute): small store, one run per measurement, a
                                   20000-passage synthetic content, no memory run at 1,000,000.
          --json FILE              Write every figure to FILE as JSON.
          --workdir DIR            Keep stores and archives in DIR and reuse the cached ones (the synthetic
                                   content and the --memory store); default: a temporary directory, removed.
          --memory                 Also measure the peak memory of export and import at --memory-annotations.
          --memory-annotations N   The size of the --memory store (default 1000000).
          --passages N             Passages of the synthetic content (default 100000).
          --late-joiner N          Changes of 4 devices a new store catches up from through a sync folder,
                                   against one archive's import (default 100000; 4000 with --quick).
          --seed N                 Seed of the generated data (default 1).
          --only GROUPS            Only these groups of measurements, comma-separated: writes, archives,
                                   timeline, sync, interop, search, reconcile, memory, report (e.g.
                                   --only search).
          --python PATH            The Python interpreter for the reference (default python3).
          -h, --help               Show this help.
        """

    /// Reads the options; throws `UsageError` with the reason.
    static func parse(_ arguments: [String]) throws -> BenchOptions? {
        var options = BenchOptions()
        var annotationsGiven = false
        var passagesGiven = false
        var index = 0
        func value(_ name: String, inline: String?) throws -> String {
            if let inline { return inline }
            index += 1
            guard index < arguments.count else { throw UsageError("\(name) needs a value") }
            return arguments[index]
        }
        func number(_ name: String, _ text: String, minimum: Int) throws -> Int {
            guard let number = Int(text.replacingOccurrences(of: "_", with: "")), number >= minimum else {
                throw UsageError("\(name) must be a whole number of at least \(minimum), not '\(text)'")
            }
            return number
        }
        while index < arguments.count {
            let argument = arguments[index]
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            let name = parts[0]
            let inline = parts.count > 1 ? parts[1] : nil
            switch name {
            case "-h", "--help":
                return nil
            case "--quick":
                options.quick = true
            case "--memory":
                options.memory = true
            case "--annotations":
                options.annotations = try number(name, try value(name, inline: inline), minimum: 20)
                annotationsGiven = true
            case "--memory-annotations":
                options.memoryAnnotations = try number(name, try value(name, inline: inline), minimum: 20)
            case "--passages":
                options.syntheticPassages = try number(name, try value(name, inline: inline), minimum: 100)
                passagesGiven = true
            case "--late-joiner":
                options.lateJoinerChanges = try number(name, try value(name, inline: inline), minimum: 4)
            case "--seed":
                options.seed = UInt64(try number(name, try value(name, inline: inline), minimum: 0))
            case "--json":
                options.jsonPath = try value(name, inline: inline)
            case "--workdir":
                options.workdir = try value(name, inline: inline)
            case "--only":
                var groups = Set<Group>()
                for name in try value(name, inline: inline).split(separator: ",") {
                    guard let group = Group(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                        let known = Group.allCases.map(\.rawValue).joined(separator: ", ")
                        throw UsageError("--only takes groups among \(known), not '\(name)'")
                    }
                    groups.insert(group)
                }
                options.only = groups
            case "--python":
                options.python = try value(name, inline: inline)
            default:
                throw UsageError("unknown option '\(argument)'")
            }
            index += 1
        }
        if options.quick {
            if !annotationsGiven { options.annotations = 10_000 }
            if !passagesGiven { options.syntheticPassages = 20_000 }
        }
        return options
    }
}

/// A command line that cannot be run.
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
