import Testing
@testable import Marginalia

@Suite struct HexDigitTests {
    /// Every byte, against the digits as `String(_:radix:)` writes them: lowercase always, uppercase only when
    /// allowed, nothing else.
    @Test func everyByteIsReadAsItsDigitOrRefused() {
        let lower = Dictionary(uniqueKeysWithValues: (0..<16).map { (String($0, radix: 16).utf8.first!, UInt8($0)) })
        let upper = Dictionary(uniqueKeysWithValues: (0..<16).map {
            (String($0, radix: 16, uppercase: true).utf8.first!, UInt8($0))
        })
        for byte in UInt8.min...UInt8.max {
            #expect(HexDigit.value(of: byte) == lower[byte], "byte \(byte)")
            #expect(HexDigit.value(of: byte, uppercase: true) == lower[byte] ?? upper[byte], "byte \(byte)")
        }
    }
}
