-- custom
-- External ids are stored in Unicode NFC from now on (server/lib/external-ids.ts); the ones
-- stored before are normalised by a data migration, which reports two ids of one organisation
-- that would become equal and leaves them as they are (normalizeStoredExternalIds).
INSERT INTO `pending_backfills` (`name`) VALUES ('external_id_nfc');
