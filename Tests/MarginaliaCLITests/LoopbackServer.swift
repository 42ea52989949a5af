import Foundation
import MarginaliaTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The Python virtual environment with moto's S3 server and wsgidav: `$MARGINALIA_TEST_VENV`, else the one
/// `.ci/run` makes, `/opt/marginalia-venv`.
let testVenv = ProcessInfo.processInfo.environment["MARGINALIA_TEST_VENV"] ?? "/opt/marginalia-venv"

/// Whether the remote tests must run (`.ci/run` sets `MARGINALIA_REMOTE_TESTS=required`): they then fail when a
/// server or rclone is missing, instead of being skipped.
let remoteTestsRequired = ProcessInfo.processInfo.environment["MARGINALIA_REMOTE_TESTS"] == "required"

/// Whether rclone, moto and wsgidav are all here.
let hasRemoteServers = rclonePath != nil
    && FileManager.default.isExecutableFile(atPath: "\(testVenv)/bin/moto_server")
    && FileManager.default.isExecutableFile(atPath: "\(testVenv)/bin/wsgidav")

/// The package's `scripts` directory.
let scriptsDirectory = CLIWorkspace.samples.deletingLastPathComponent().appendingPathComponent("scripts").path

/// A server on loopback that a test starts and stops: moto's S3 server, wsgidav, the fault-injecting proxy.
final class LoopbackServer {
    let port: Int
    let name: String
    private let running: ChildProcess.Running

    /// Starts `executable` with `arguments(port)` on a free port and waits until it accepts connections.
    init(_ name: String, _ executable: String, _ arguments: (Int) -> [String],
         environment: [String: String]? = nil) throws {
        self.name = name
        port = try Self.freePort()
        running = try ChildProcess(executable, arguments(port), environment: environment).start()
        let deadline = Date().addingTimeInterval(60)
        while !Self.accepts(port) {
            guard running.isRunning, Date() < deadline else {
                running.send(SIGKILL)
                let result = running.wait()
                throw ServerFailure(description: "\(name) did not start: \(result.stderr.suffix(2000))")
            }
            usleep(100_000)
        }
    }

    deinit {
        running.send(SIGKILL)
        _ = running.wait()
    }

    /// Stops the server and returns what it printed on stderr. With SIGKILL: a child of the test process starts
    /// with the signal mask of the thread that started it, where SIGTERM may be blocked.
    @discardableResult
    func stop() -> String {
        running.send(SIGKILL)
        return running.wait().stderr
    }

    struct ServerFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// A port nothing listens on now (the kernel's choice for port 0).
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw ServerFailure(description: "socket: \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw ServerFailure(description: "bind: \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Whether something accepts TCP connections on `port` of 127.0.0.1.
    static func accepts(_ port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
