import PodiumStore
import Testing

/// Only content-addressed names reach the file system; media extensions with digits are names.
@Suite("Blob names")
struct BlobNameTests {
    static let hash = String(repeating: "ab", count: 32)

    @Test(arguments: ["jpg", "pdf", "mp4", "m4s", "m3u8", "mp3", "webm"])
    func mediaExtensionsAreNames(_ ext: String) {
        #expect(FileBlobStore.isValidName("\(Self.hash).\(ext)"))
    }

    @Test(arguments: ["4mp", "", "toolong", "JPG", "jp/g", "m3u8.x", "m-4"])
    func anythingElseIsNot(_ ext: String) {
        #expect(!FileBlobStore.isValidName("\(Self.hash).\(ext)"))
    }

    @Test func theHashIsLowercaseHexOfSHA256Length() {
        #expect(!FileBlobStore.isValidName("\(Self.hash.uppercased()).jpg"))
        #expect(!FileBlobStore.isValidName("\(Self.hash.dropLast()).jpg"))
        #expect(!FileBlobStore.isValidName("../\(Self.hash.dropFirst(3)).jpg"))
    }
}
