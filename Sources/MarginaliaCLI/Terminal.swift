import Foundation

/// Questions asked on the controlling terminal, whatever standard input and output are.
enum Terminal {
    /// Reads one line from the terminal with echo off, after writing `prompt` to it.
    ///
    /// - Throws: `UsageError` when there is no terminal to ask on.
    static func askSecret(_ prompt: String) throws -> String {
        // "/dev/tty … the controlling terminal for the process", https://pubs.opengroup.org/onlinepubs/9699919799/
        // basedefs/V1_chap10.html: asked there, a passphrase never passes through a pipe.
        let descriptor = open("/dev/tty", O_RDWR | O_NOCTTY)
        guard descriptor >= 0 else {
            throw UsageError("--passphrase asks on the terminal, and there is none; set $MARGINALIA_PASSPHRASE")
        }
        defer { close(descriptor) }
        var saved = termios()
        let haveAttributes = tcgetattr(descriptor, &saved) == 0
        if haveAttributes {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            _ = tcsetattr(descriptor, TCSAFLUSH, &quiet)
        }
        defer {
            if haveAttributes { _ = tcsetattr(descriptor, TCSAFLUSH, &saved) }
            _ = write(descriptor, "\n", 1)
        }
        _ = prompt.withCString { write(descriptor, $0, strlen($0)) }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") {
            line.append(byte)
        }
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        return String(decoding: line, as: UTF8.self)
    }
}
