import NIOCore
import PodiumCore

/// The presenters' viewer list as one frame, each viewer's JSON kept from the list before.
///
/// The list goes out whole (at most every ``LiveSession/viewerListInterval``) so a presenter's
/// socket can keep only the newest; between two lists a filling hall changes a few entries. At
/// 10,000 viewers `JSONEncoder` took about 30 ms for the whole list on the benchmark machine,
/// on the session's actor, ahead of the presenter's next pointer move; reusing the unchanged
/// entries leaves a copy of their bytes. The frame is the same JSON as `ViewerListMessage`'s.
struct ViewerListFrames {
    /// By position in the list, which only grows at its end (viewers are never forgotten).
    private var encoded: [(view: ViewerView, json: ByteBuffer)] = []

    mutating func frame(_ views: [ViewerView]) -> ByteBuffer {
        if encoded.count > views.count { encoded.removeAll() }  // a different list: start over
        var frame = ByteBuffer()
        frame.reserveCapacity(32 + views.count * 64)
        frame.writeStaticString(#"{"type":"viewerList","viewers":["#)
        for (index, view) in views.enumerated() {
            if index > 0 { frame.writeStaticString(",") }
            if index < encoded.count, encoded[index].view == view {
                frame.writeImmutableBuffer(encoded[index].json)
                continue
            }
            let json = Frames.encode(view)
            if index < encoded.count { encoded[index] = (view, json) } else { encoded.append((view, json)) }
            frame.writeImmutableBuffer(json)
        }
        frame.writeStaticString("]}")
        return frame
    }
}
