import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A program to run as a child process: its arguments, environment, standard input and working directory.
///
///     let gunzip = try ChildProcess("/bin/gzip", ["-dc", path]).run()
///     #expect(gunzip.status == 0)
///     #expect(gunzip.stdout.hasPrefix("{"))
///
/// Standard output and standard error are collected apart, each drained while the child runs so that neither pipe
/// can fill and block it. Standard input is the given bytes, read from a file rather than a pipe so that a child
/// that stops reading early cannot make a write here fail; without them it is `/dev/null`.
public struct ChildProcess {
    public var executable: URL
    public var arguments: [String]
    /// The child's whole environment; nil inherits this process's.
    public var environment: [String: String]?
    /// The bytes on the child's standard input; nil gives it `/dev/null`.
    public var input: Data?
    /// The child's working directory; nil inherits this process's.
    public var directory: URL?
    /// Where the child's standard output goes instead of into the result (a file, `/dev/full`, a closed pipe).
    public var standardOutput: FileHandle?

    public init(_ executable: URL, _ arguments: [String] = [], environment: [String: String]? = nil,
                input: Data? = nil, directory: URL? = nil, standardOutput: FileHandle? = nil) {
        self.executable = executable
        self.arguments = arguments
        self.environment = environment
        self.input = input
        self.directory = directory
        self.standardOutput = standardOutput
    }

    /// The program at `path`.
    public init(_ path: String, _ arguments: [String] = [], environment: [String: String]? = nil,
                input: Data? = nil, directory: URL? = nil, standardOutput: FileHandle? = nil) {
        self.init(URL(fileURLWithPath: path), arguments, environment: environment, input: input,
                  directory: directory, standardOutput: standardOutput)
    }

    /// Runs the program to its end.
    ///
    /// - Throws: when the program cannot be started (no such file, not executable) or its input cannot be staged.
    public func run() throws -> Result {
        try start().wait()
    }

    /// Starts the program and returns while it runs, for a caller that watches or signals it before it ends.
    ///
    /// - Throws: when the program cannot be started (no such file, not executable) or its input cannot be staged.
    public func start() throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = try input.map(Self.inputFile) ?? FileHandle.nullDevice
        let output = standardOutput == nil ? Pipe() : nil
        let errors = Pipe()
        if let standardOutput { process.standardOutput = standardOutput } else { process.standardOutput = output }
        process.standardError = errors
        try process.run()
        return Running(process, output: output.map(Drain.init), errors: Drain(errors))
    }

    /// `bytes` in an open file that is already unlinked: it lives as long as the handles on it.
    private static func inputFile(_ bytes: Data) throws -> FileHandle {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("marginalia-stdin-\(UUID())")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try FileHandle(forReadingFrom: file)
    }
}

extension ChildProcess {
    /// How a child process ended and what it wrote.
    public struct Result: Sendable {
        /// The exit status, or the number of the signal that ended the child (see `endedBySignal`).
        public let status: Int32
        /// Whether a signal ended the child, rather than an exit.
        public let endedBySignal: Bool
        /// Everything the child wrote to standard output (nothing when it went to `standardOutput`).
        public let output: Data
        /// Everything the child wrote to standard error.
        public let errorOutput: Data

        /// Standard output as UTF-8 text (an invalid sequence reads as U+FFFD).
        public var stdout: String { String(decoding: output, as: UTF8.self) }
        /// Standard error as UTF-8 text (an invalid sequence reads as U+FFFD).
        public var stderr: String { String(decoding: errorOutput, as: UTF8.self) }
    }

    /// A child process that was started and may still run.
    public final class Running {
        private let process: Process
        private let output: Drain?
        private let errors: Drain

        fileprivate init(_ process: Process, output: Drain?, errors: Drain) {
            self.process = process
            self.output = output
            self.errors = errors
        }

        /// The child's process id.
        public var processIdentifier: Int32 { process.processIdentifier }

        /// Whether the child has not ended yet.
        public var isRunning: Bool { process.isRunning }

        /// Sends `signal` (such as `SIGKILL` or `SIGSTOP`) to the child.
        public func send(_ signal: Int32) {
            kill(process.processIdentifier, signal)
        }

        /// Waits until the child has ended and its output is read to the end.
        public func wait() -> Result {
            let outData = output?.wait() ?? Data()
            let errData = errors.wait()
            process.waitUntilExit()
            return Result(status: process.terminationStatus,
                          endedBySignal: process.terminationReason == .uncaughtSignal,
                          output: outData, errorOutput: errData)
        }
    }
}

/// The bytes of a pipe up to its end, read on a thread of their own from the moment the child starts.
private final class Drain: @unchecked Sendable {
    private let group = DispatchGroup()
    // Written once by the reading thread before it leaves the group; read only after `group.wait()`.
    private var data = Data()

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        DispatchQueue.global().async(group: group) { [self] in
            data = handle.readDataToEndOfFile()
        }
    }

    /// Everything the pipe delivered, once its writing end closed.
    func wait() -> Data {
        group.wait()
        return data
    }
}
