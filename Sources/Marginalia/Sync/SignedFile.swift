/// The signature every small file a device writes into the folder carries (its manifest, its status file, its
/// roster file, a join request): the JSON object's last member,
///
///     "sig":{"by":"<device id>","ed25519":"<base64>"}
///
/// over `prefix`, the file's kind, a line feed and the object's JSON without that member, as `JSONWriter` writes
/// it. A reader re-encodes what it parsed and checks the signature with the key the roster holds for the device:
/// a file whose members were reordered, re-escaped, added to or changed does not verify, and is refused.
enum SignedFile {
    static let prefix = Array("marginalia signed file v1\n".utf8)

    /// Why a file is not taken as its device's.
    struct Refusal: Error, CustomStringConvertible {
        var reason: String
        var description: String { reason }
    }

    /// The bytes of `members` signed by `keys` as a file of `kind`: the JSON object and a final line feed.
    static func encode(_ members: [(String, JSONValue)], kind: String, keys: DeviceKeys) throws -> [UInt8] {
        let body = try JSONWriter.encode(.object(JSONObject(members)))
        let signature = try keys.sign(prefix + Array("\(kind)\n".utf8) + body)
        let sig = JSONValue.object(JSONObject([("by", .string(keys.device)),
                                               ("ed25519", .string(AgeBase64.encode(signature)))]))
        return try JSONWriter.encode(.object(JSONObject(members + [("sig", sig)]))) + [0x0A]
    }

    /// The members of a signed file of `kind` (without its signature) and the device that signed it, once the
    /// signature checks against `keys(device)`.
    /// - Throws: `Refusal` for a file that is not JSON, has no signature, is signed by a device `keys` does not
    ///   know, or whose signature does not match.
    static func decode(_ bytes: [UInt8], kind: String, keys: (String) -> DevicePublicKeys?) throws
        -> (object: JSONObject, signer: String)
    {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else {
            throw Refusal(reason: "not a JSON object (cut short, or not a file of marginalia's)")
        }
        guard let last = object.keys.last, last == "sig", case .object(let sig)? = object["sig"],
              case .string(let signer)? = sig["by"], case .string(let text)? = sig["ed25519"],
              let signature = AgeBase64.decode(text) else {
            throw Refusal(reason: "not signed (no \"sig\" member last)")
        }
        guard let signerKeys = keys(signer) else {
            throw Refusal(reason: "signed by device \(signer), which may not speak in this folder")
        }
        let members = JSONObject(object.dropLast().map { ($0.key, $0.value) })
        let body = (try? JSONWriter.encode(.object(members))) ?? []
        guard signerKeys.verifies(signature, of: prefix + Array("\(kind)\n".utf8) + body) else {
            throw Refusal(reason: "the signature does not match device \(signer)'s key: altered, or forged")
        }
        return (members, signer)
    }
}
