import Foundation
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

    /// A blob's path is made from its name alone (the one stat is the server's); a name that is no
    /// blob's has none, and `file(named:)` still answers only for a file that is there.
    @Test func aBlobsPathIsItsNameUnderItsPrefixDirectory() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("blobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try FileBlobStore(root: root)
        let name = "\(Self.hash).jpg"
        #expect(store.path(named: name) == root.path + "/ab/" + name)
        #expect(store.file(named: name) == nil)
        for bad in ["../\(Self.hash.dropFirst(3)).jpg", "\(Self.hash).JPG", "x"] {
            #expect(store.path(named: bad) == nil, "\(bad)")
        }
        let source = root.appendingPathComponent("source")
        try Data("bytes".utf8).write(to: source)
        let stored = try store.put(fileAt: source, fileExtension: "txt")
        #expect(store.file(named: stored)?.path == store.path(named: stored))
    }
}
