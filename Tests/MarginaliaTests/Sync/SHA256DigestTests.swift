import Foundation
import Testing
@testable import Marginalia

/// SHA-256 through the system's library matches the published test vectors (FIPS 180-2, appendix B).
@Suite struct SHA256DigestTests {
    @Test func emptyInput() throws {
        #expect(try SHA256Digest.hex(of: []) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test func abc() throws {
        #expect(try SHA256Digest.hex(of: Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func twoBlockMessage() throws {
        let message = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"
        #expect(try SHA256Digest.hex(of: Array(message.utf8))
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }
}
