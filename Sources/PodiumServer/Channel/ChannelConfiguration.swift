import Foundation

/// How this server runs its channel (seed 004): what it is called, what a non-member is told when
/// they meet a limit, and the limits themselves.
public struct ChannelConfiguration: Sendable {
    public var name = "Podium Channel"
    /// Shown with every limit: how to become a member.
    public var membershipInfo = "Members see everything. Ask the channel's team to make your account a member."
    /// Where to become a member (a donation or sign-up page), if there is one.
    public var membershipURL: String?
    /// Where the radio's daily allowance resets at midnight.
    public var timeZone = TimeZone.current
    /// How long a non-member may listen to the radio a day.
    public var radioDailyAllowance: TimeInterval = 15 * 60
    /// How many daily allowances the non-members of one client address (an IPv6 /64) share: a
    /// guest who drops the cookie is a new person but the same address. Enough for a lecture hall
    /// behind one NAT address; 0 counts people only.
    public var radioListenersPerAddress = 40
    /// How long a stream URL works once given out: long enough to watch a film, short enough
    /// that a leaked link stops.
    public var streamTokenLifetime: TimeInterval = 6 * 3600

    public init() {}
}

/// Why the server cannot start, in words for the operator.
struct StartupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
