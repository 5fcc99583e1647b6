// PodiumWire: the JSON the server and its clients exchange, written once.
//
// Every REST body and answer of `Public/openapi.yaml`, and the socket frames not already shared
// through `PodiumCore`'s `ClientMessage`/`ServerMessage`, are a type here: the server
// (`PodiumServer`) builds them from its records and encodes them, the Swift SDK
// (`PodiumClient`, which re-exports this module) decodes the same types. A field documented as
// `null` is encoded as `null`; one documented as absent when it has no value is left out.
//
// The module depends on `PodiumCore` (for the shared value types such as `PageInfo` and
// `SessionKind`) and Foundation only: it knows no store, no HTTP framework.
