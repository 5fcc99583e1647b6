import Foundation
import Testing

@testable import PodiumStore

/// Account links, roles and the audit log on both databases: a link found by its token's hash,
/// moved on once (compare-and-set, expiry checked), renewed, revoked; the audit log numbered and
/// paged newest first.
@Suite("Account store on SQLite and PostgreSQL", .timeLimit(.minutes(2)))
struct AccountStoreTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000.25)

    static func link(_ id: String, _ kind: AccountLinkRecord.Kind, email: String, hash: String) -> AccountLinkRecord {
        AccountLinkRecord(
            id: id, kind: kind, tokenHash: hash, email: email, role: .admin, name: "Name \(id)", createdBy: "u1",
            expiresAt: t0 + 3600, createdAt: t0 + Double(id.count))
    }

    @Test(arguments: TestStores.kinds) func linksWorkOnceAndUntilTheyExpire(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await VideoStoreTests.seedOwner(store)
            let first = Self.link("l1", .invitation, email: "a@school.test", hash: "h1")
            try await store.insertAccountLink(first)
            try await store.insertAccountLink(Self.link("l22", .invitation, email: "b@school.test", hash: "h2"))
            try await store.insertAccountLink(Self.link("l333", .signUp, email: "c@school.test", hash: "h3"))
            #expect(try await store.accountLink(tokenHash: "h1") == first)
            #expect(try await store.accountLink(id: "l1") == first)
            #expect(try await store.accountLink(tokenHash: "nope") == nil)
            #expect(try await store.accountLinks(kind: .invitation, statuses: [.pending]).map(\.id) == ["l22", "l1"])

            // Expired: not moved. In time: moved once.
            #expect(try await !store.moveAccountLink(id: "l1", from: .pending, to: .used, now: Self.t0 + 3600))
            #expect(try await store.moveAccountLink(id: "l1", from: .pending, to: .used, now: Self.t0 + 10))
            #expect(try await !store.moveAccountLink(id: "l1", from: .pending, to: .used, now: Self.t0 + 10))
            #expect(try await store.accountLink(id: "l1")?.usedAt == Self.t0 + 10)
            #expect(try await !store.renewAccountLink(id: "l1", tokenHash: "h1b", expiresAt: Self.t0 + 7200))

            try await store.setAccountLinkDelivery(id: "l22", .failed, error: "550 no such mailbox")
            #expect(try await store.accountLink(id: "l22")?.deliveryError == "550 no such mailbox")
            #expect(try await store.renewAccountLink(id: "l22", tokenHash: "h2b", expiresAt: Self.t0 + 7200))
            let renewed = try #require(try await store.accountLink(tokenHash: "h2b"))
            #expect(renewed.delivery == .queued && renewed.deliveryError == nil && renewed.expiresAt == Self.t0 + 7200)
            #expect(try await store.accountLink(tokenHash: "h2") == nil)

            try await store.revokeAccountLinks(kind: .invitation, email: "b@school.test")
            #expect(try await store.accountLink(id: "l22")?.status == .revoked)
            #expect(try await store.accountLinks(kind: .invitation, statuses: [.pending]).isEmpty)
            // Another kind is left alone; a move without `now` ignores expiry (an admin's decision).
            #expect(try await store.moveAccountLink(id: "l333", from: .pending, to: .verified, now: nil))
            #expect(try await store.accountLinks(kind: .signUp, statuses: [.verified]).map(\.id) == ["l333"])
        }
    }

    @Test(arguments: TestStores.kinds) func theAuditLogIsNumberedAndPagedNewestFirst(_ kind: StoreKind) async throws {
        try await TestStores.with(kind) { store in
            try await VideoStoreTests.seedOwner(store)
            var seqs: [Int] = []
            for number in 1...5 {
                let entry = try await store.appendAudit(
                    AuditRecord(
                        at: Self.t0 + Double(number), actorId: number == 5 ? nil : "u1", actorName: "Admin",
                        action: "user.created", target: "t\(number)@school.test", detail: "presenter", address: "10.0.0.1"))
                seqs.append(entry.seq)
            }
            #expect(seqs == seqs.sorted() && Set(seqs).count == 5)
            let page = try await store.auditEntries(before: nil, limit: 2)
            #expect(page.map(\.target) == ["t5@school.test", "t4@school.test"])
            #expect(page.first?.actorId == nil && page.first?.at == Self.t0 + 5)
            let next = try await store.auditEntries(before: page.last?.seq, limit: 10)
            #expect(next.map(\.target) == ["t3@school.test", "t2@school.test", "t1@school.test"])

            #expect(try await store.adminCount() == 0)
            try await store.setRole(userId: "u1", .admin)
            #expect(try await store.adminCount() == 1)
            #expect(try await store.user(id: "u1")?.role == .admin)
        }
    }
}
