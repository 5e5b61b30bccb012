//! The client assertion of `private_key_jwt` (RFC 7523 section 2.2, SEP-1046): a JWT signed
//! ES256 with the client's own key (a PKCS#8 PEM file the entry names), sent instead of a
//! secret with client credentials. ring (already linked for TLS) signs.
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use base64::Engine;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::json;

/// The assertion for `client_id` at the authorization server `audience` (its issuer).
pub fn assertion(pem: &str, client_id: &str, audience: &str) -> Result<String, String> {
    let body: String = pem
        .lines()
        .filter(|l| !l.starts_with("-----"))
        .map(str::trim)
        .collect();
    let der = base64::engine::general_purpose::STANDARD
        .decode(body)
        .map_err(|_| "the private key is not a PEM file".to_string())?;
    let rng = SystemRandom::new();
    let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng)
        .map_err(|e| format!("the private key is not a P-256 PKCS#8 key: {e}"))?;
    let now = super::store::now();
    let header = json!({"alg": "ES256", "typ": "JWT"});
    let claims = json!({
        "iss": client_id, "sub": client_id, "aud": audience,
        "iat": now, "exp": now + 300,
        "jti": format!("{:016x}{:016x}", crate::util::random_u64(), crate::util::random_u64()),
    });
    let signing_input = format!(
        "{}.{}",
        B64.encode(header.to_string()),
        B64.encode(claims.to_string())
    );
    let sig = key
        .sign(&rng, signing_input.as_bytes())
        .map_err(|_| "signing the client assertion failed".to_string())?;
    Ok(format!("{signing_input}.{}", B64.encode(sig.as_ref())))
}
